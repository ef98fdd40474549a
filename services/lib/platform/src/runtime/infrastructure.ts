import { createServer } from 'node:http';
import { AggregatorRegistry, collectDefaultMetrics, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { CallerAssertions } from '../grpc/caller';
import { createGrpcClients, type GrpcClients } from '../grpc/grpc-clients';
import { createGrpcServer, type LocalServices, type PackyardGrpcServer } from '../grpc/grpc-server';
import { createHttpServer, type HttpServer } from '../http/http-server';
import { GRPC_CLIENT_SETTINGS, GRPC_SERVER_SETTINGS, HTTP_SERVER_SETTINGS, INTERNAL_AUTH_SETTINGS, loadCallerAssertions, METRICS_SETTINGS } from './infrastructure-settings';
import { defineModule, type ModuleDefinition } from './module';

const untilTimeout = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/**
 * The process's registry, plus the metrics of processes it runs (edge workers), asked for
 * at each scrape. Their series carry a label of their own (`edge_worker`), so one scrape of
 * the process shows every process's series side by side, none summed into another.
 */
export class ProcessRegistry extends Registry {
  private readonly sources: (() => Promise<MetricsSnapshot[]>)[] = [];

  addSource(source: () => Promise<MetricsSnapshot[]>): void {
    this.sources.push(source);
  }

  async exposition(): Promise<string> {
    if (this.sources.length === 0) return this.metrics();
    const snapshots = [await this.getMetricsAsJSON(), ...(await Promise.all(this.sources.map((source) => source()))).flat()];
    // label sets differ between processes, so 'sum' only lays them side by side (and keeps
    // the metrics whose own aggregator would be 'omit' or 'first', such as process_start_time_seconds)
    const laidSideBySide = snapshots.map((metrics) => metrics.map((metric) => ({ ...metric, aggregator: 'sum' as const })));
    return AggregatorRegistry.aggregate(laidSideBySide).metrics();
  }
}

/**
 * One prom-client registry per process, passed to every module (no import-time
 * globals), served on its own port: Prometheus scrapes it from inside the cluster,
 * while the public port never shows it to the world.
 */
export const metricsModule = defineModule<ProcessRegistry>({
  name: 'metrics',
  hidden: true,
  deps: [],
  settings: METRICS_SETTINGS,
  init: (ctx) => {
    const { metricsPort, metricsHost } = ctx.settings(METRICS_SETTINGS);
    const registry = new ProcessRegistry();
    collectDefaultMetrics({ register: registry });
    const server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('only /metrics is served here\n');
        return;
      }
      registry.exposition().then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (error: Error) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
      );
    });
    return {
      value: registry,
      start: async () => {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(metricsPort, metricsHost, () => {
            server.off('error', reject);
            resolve();
          });
        });
        server.on('error', (error) => ctx.fail(error));
        ctx.logger.info({ port: (server.address() as { port: number }).port, host: metricsHost }, 'metrics server listening');
      },
      stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  },
});

/** The key calls between modules are authenticated with (see CallerAssertions). */
export const internalAuthModule = defineModule<CallerAssertions>({
  name: 'internal-auth',
  hidden: true,
  deps: [],
  settings: INTERNAL_AUTH_SETTINGS,
  init: async (ctx) => {
    return { value: await loadCallerAssertions(ctx.config.dataDir, ctx.settings(INTERNAL_AUTH_SETTINGS).internalAuthKey) };
  },
});

export interface GrpcServerHandle {
  server: PackyardGrpcServer;
  /** the services added to `server`, called by clients of this process without the network */
  local: LocalServices;
  /** host:port this process's gRPC server is bound to (after start) */
  address(): string;
}

/** The process's gRPC server; service modules add their services while they initialise. */
export const grpcServerModule = defineModule<GrpcServerHandle>({
  name: 'grpc-server',
  hidden: true,
  deps: [metricsModule, internalAuthModule],
  settings: GRPC_SERVER_SETTINGS,
  init: (ctx) => {
    const { grpcPort, grpcHost } = ctx.settings(GRPC_SERVER_SETTINGS);
    const registry = ctx.use(metricsModule);
    const serviceModules = () => [...ctx.running];
    const { server, local } = createGrpcServer(registry, ctx.logger, serviceModules, ctx.use(internalAuthModule));
    let boundPort = 0;
    return {
      value: { server, local, address: () => `${grpcHost === '0.0.0.0' ? '127.0.0.1' : grpcHost}:${boundPort}` },
      start: async () => {
        boundPort = await server.listen(`${grpcHost}:${grpcPort}`);
        ctx.logger.info({ address: `${grpcHost}:${boundPort}` }, 'gRPC server listening');
      },
      drain: async () => {
        // in-flight calls finish; new ones are refused
        await Promise.race([Promise.all([server.shutdown(), local.drain()]), untilTimeout(ctx.config.shutdownTimeoutMs)]);
        server.forceShutdown();
      },
    };
  },
});

/** Clients for other modules: those this process runs are called in-process, remote ones at `<MODULE>_GRPC_ADDR`. */
export const grpcClientsModule = defineModule<GrpcClients>({
  name: 'grpc-clients',
  hidden: true,
  deps: [metricsModule, grpcServerModule, internalAuthModule],
  settings: GRPC_CLIENT_SETTINGS,
  init: (ctx) => {
    const ownServer = ctx.use(grpcServerModule);
    const clients = createGrpcClients({
      registry: ctx.use(metricsModule),
      deadlineMs: ctx.settings(GRPC_CLIENT_SETTINGS).grpcDeadlineMs,
      assertions: ctx.use(internalAuthModule),
      addressesOf: (module) => {
        const configured = ctx.config.moduleAddresses[module];
        if (configured) return configured.split(',').map((address) => address.trim()).filter(Boolean);
        if (ctx.running.has(module)) return [ownServer.address()];
        throw new Error(`module ${module} does not run in this process; set ${module.toUpperCase()}_GRPC_ADDR`);
      },
      local: (module) => (ctx.running.has(module) && !ctx.config.moduleAddresses[module] ? ownServer.local : undefined),
    });
    return { value: clients, stop: async () => clients.close() };
  },
});

/**
 * The process's HTTP server: the API, the console and the apt/yum edge share one port,
 * and every process, whatever it runs, answers liveness and readiness there. It depends
 * on the gRPC server so that it opens after, and drains before, the internal calls its
 * requests make.
 */
export const httpServerModule = defineModule<HttpServer>({
  name: 'http-server',
  hidden: true,
  deps: [metricsModule, grpcServerModule],
  settings: HTTP_SERVER_SETTINGS,
  init: (ctx) => {
    const { port, host, trustProxy, headersTimeoutSeconds, requestTimeoutSeconds, idleTimeoutSeconds, uploadTimeoutSeconds } = ctx.settings(HTTP_SERVER_SETTINGS);
    const http = createHttpServer({
      logger: ctx.logger,
      registry: ctx.use(metricsModule),
      bodyLimit: 1024 * 1024,
      trustProxy,
      isProcessReady: ctx.isProcessReady,
      timeouts: {
        headersMs: headersTimeoutSeconds * 1000,
        requestMs: requestTimeoutSeconds * 1000,
        idleMs: idleTimeoutSeconds * 1000,
        longBodyMs: uploadTimeoutSeconds * 1000,
      },
    });
    return {
      value: http,
      start: async () => {
        const bound = await http.listen(port, host);
        http.app.server.on('error', (error) => ctx.fail(error));
        if (bound.privateSocket) ctx.logger.info({ socket: bound.privateSocket }, 'the public port is served by other processes, which forward what is not theirs to this socket');
        ctx.logger.info({ port: bound.port }, 'HTTP server listening');
      },
      drain: async () => {
        await Promise.race([http.close(), untilTimeout(ctx.config.shutdownTimeoutMs)]);
      },
    };
  },
});

export const INFRASTRUCTURE: ModuleDefinition<unknown>[] = [metricsModule, internalAuthModule, grpcServerModule, grpcClientsModule, httpServerModule];
