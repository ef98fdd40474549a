import { collectDefaultMetrics, Registry } from 'prom-client';
import { createGrpcClients, type GrpcClients } from '../grpc/grpc-clients';
import { createGrpcServer, type PackyardGrpcServer } from '../grpc/grpc-server';
import { createHttpServer, type HttpServer } from '../http/http-server';
import { defineModule, type ModuleDefinition } from './module';

/** One prom-client registry per process, passed to every module (no import-time globals). */
export const metricsModule = defineModule<Registry>({
  name: 'metrics',
  hidden: true,
  deps: [],
  init: () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    return { value: registry };
  },
});

export interface GrpcServerHandle {
  server: PackyardGrpcServer;
  /** host:port this process's gRPC server is bound to (after start) */
  address(): string;
}

/** The process's gRPC server; service modules add their services while they initialise. */
export const grpcServerModule = defineModule<GrpcServerHandle>({
  name: 'grpc-server',
  hidden: true,
  deps: [metricsModule],
  init: (ctx) => {
    const registry = ctx.use(metricsModule);
    const serviceModules = () => [...ctx.running];
    const server = createGrpcServer(registry, ctx.logger, serviceModules);
    let boundPort = 0;
    return {
      value: { server, address: () => `${ctx.config.grpcHost === '0.0.0.0' ? '127.0.0.1' : ctx.config.grpcHost}:${boundPort}` },
      start: async () => {
        boundPort = await server.listen(`${ctx.config.grpcHost}:${ctx.config.grpcPort}`);
        ctx.logger.info({ address: `${ctx.config.grpcHost}:${boundPort}` }, 'gRPC server listening');
      },
      drain: async () => {
        // in-flight calls finish; new ones are refused
        await Promise.race([server.shutdown(), new Promise((resolve) => setTimeout(resolve, ctx.config.shutdownTimeoutMs).unref())]);
        server.forceShutdown();
      },
    };
  },
});

/** Clients for other modules: local ones over loopback, remote ones at `<MODULE>_GRPC_ADDR`. */
export const grpcClientsModule = defineModule<GrpcClients>({
  name: 'grpc-clients',
  hidden: true,
  deps: [metricsModule, grpcServerModule],
  init: (ctx) => {
    const local = ctx.use(grpcServerModule);
    const clients = createGrpcClients({
      registry: ctx.use(metricsModule),
      deadlineMs: ctx.config.grpcDeadlineMs,
      addressOf: (module) => {
        const configured = ctx.config.moduleAddresses[module];
        if (configured) return configured;
        if (ctx.running.has(module)) return local.address();
        throw new Error(`module ${module} does not run in this process; set ${module.toUpperCase()}_GRPC_ADDR`);
      },
    });
    return { value: clients, stop: async () => clients.close() };
  },
});

/**
 * The process's HTTP server: the API, the console and the apt/yum edge share one port.
 * It depends on the gRPC server so that it opens after, and drains before, the
 * internal calls its requests make.
 */
export const httpServerModule = defineModule<HttpServer>({
  name: 'http-server',
  hidden: true,
  deps: [metricsModule, grpcServerModule],
  init: (ctx) => {
    const http = createHttpServer({
      logger: ctx.logger,
      registry: ctx.use(metricsModule),
      bodyLimit: 1024 * 1024,
      trustProxy: ctx.config.trustProxy,
      isProcessReady: ctx.isProcessReady,
      timeouts: {
        headersMs: ctx.config.httpHeadersTimeoutSeconds * 1000,
        requestMs: ctx.config.httpRequestTimeoutSeconds * 1000,
        idleMs: ctx.config.httpIdleTimeoutSeconds * 1000,
        longBodyMs: ctx.config.uploadTimeoutSeconds * 1000,
      },
    });
    return {
      value: http,
      start: async () => {
        await http.app.listen({ port: ctx.config.port, host: ctx.config.host });
        ctx.logger.info({ port: http.port() }, 'HTTP server listening');
      },
      drain: async () => {
        await Promise.race([http.app.close(), new Promise((resolve) => setTimeout(resolve, ctx.config.shutdownTimeoutMs).unref())]);
      },
    };
  },
});

export const INFRASTRUCTURE: ModuleDefinition<unknown>[] = [metricsModule, grpcServerModule, grpcClientsModule, httpServerModule];
