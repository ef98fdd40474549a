import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import { PackyardError } from '../errors/errors';
import { acceptThroughCopies, type AcceptCopies } from './accept-copies';
import { edgeFirst, replyThrough, type EdgeConnections, type EdgeHandler } from './edge-http1';
import { lazySchemaCompilers } from './lazy-schema-compilers';
import { publicServerOptions, type HttpTimeouts } from './public-server-options';

export type ReadinessCheck = () => Promise<{ ok: boolean; detail?: string }>;


export interface HttpServer {
  app: FastifyInstance;
  addEdgeHandler(edge: EdgeHandler): void;
  /**
   * Other processes (edge workers) take the public port: this server then listens on a
   * private unix socket, whose path this returns, and they forward it what is not theirs.
   * When this server listens there it calls `open`, which resolves with the public port
   * once they listen on it.
   */
  delegatePublicPort(open: () => Promise<number>): string;
  /** listens on the public port, or on the private socket and has the delegate open the public one */
  listen(port: number, host: string): Promise<{ port: number; privateSocket?: string }>;
  /** stops listening, letting requests in flight finish */
  close(): Promise<void>;
  /** readiness is UP only when the process's modules started and every check passes */
  addReadinessCheck(name: string, check: ReadinessCheck): void;
  /** the public port (after start): the one bound, or the one the delegate opened */
  port(): number;
}

/**
 * Whom X-Forwarded-* are taken from: everyone with TRUST_PROXY, else only a peer on the
 * private unix socket (an edge worker forwarding a request, which has no address), so
 * the client address an edge worker passes on is the one rate limits see.
 */
const trustedProxy = (trustAll: boolean) => (trustAll ? true : (address: string | undefined, hop: number) => hop === 0 && !address);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the body may take up to `HttpTimeouts.longBodyMs` (an upload), not `requestMs` */
    longBody?: boolean;
  }
}

/** The JSON error body of the whole API: `{status, message, details}`. */
export const sendError = (reply: FastifyReply, status: number, message: string, details: Record<string, unknown> = {}) =>
  reply.code(status).type('application/json').send({ status, message, details });

const statusMessage = (error: FastifyError): string => {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'Request body is too large';
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'Unsupported content type';
  if (error.validation) return `Invalid request: ${error.message}`;
  return error.message;
};

/** answers 408 and closes the connection when the body has not arrived whole in time */
function cutIfIncompleteAfter(request: IncomingMessage, response: ServerResponse, ms: number) {
  const timer = setTimeout(() => {
    if (request.complete) return;
    if (!response.headersSent) response.writeHead(408, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ status: 408, message: 'Request body took too long', details: {} }));
    request.socket.destroySoon();
  }, ms);
  const done = () => clearTimeout(timer);
  request.once('end', done).once('close', done);
}

/**
 * The process's HTTP server (fastify). Modules register their plugins on `app` while
 * they initialise; the server listens once every module is ready to serve. Request
 * ids, RED metrics per route, the error format and health endpoints live here so every
 * module's routes behave alike. /metrics is not served here: the metrics module serves
 * it on its own port, away from the public one.
 */
export function createHttpServer(options: {
  logger: Logger;
  registry: Registry;
  bodyLimit: number;
  /** default false: X-Forwarded-* are ignored unless a trusted proxy sets them */
  trustProxy?: boolean;
  isProcessReady: () => boolean;
  timeouts: HttpTimeouts;
}): HttpServer {
  const { timeouts } = options;
  const edges: EdgeHandler[] = [];
  const app = Fastify({
    serverFactory: (fastifyHandler) =>
      createServer(
        publicServerOptions(timeouts),
        (request, response) => {
          for (const edge of edges) if (edge.matches(request.url ?? '/')) return edge.answer(request, replyThrough(response));
          fastifyHandler(request, response);
        },
      ).setTimeout(timeouts.idleMs),
    loggerInstance: options.logger,
    // no log line per request: the metrics hooks count and time them
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    trustProxy: trustedProxy(options.trustProxy ?? false),
    return503OnClosing: true,
    schemaController: { compilersFactory: lazySchemaCompilers() },
  }) as unknown as FastifyInstance;
  const checks = new Map<string, ReadinessCheck>();
  let edgeConnections: EdgeConnections | undefined;
  /** on the public port the edges' requests are read by their own HTTP/1.1 reader, everything else by node:http */
  const readEdgesFirst = () => {
    if (!edges.length) return;
    const edgeOf = (url: string) => edges.find((edge) => edge.matches(url));
    edgeConnections = edgeFirst(app.server, {
      edge: { matches: (url) => edgeOf(url) !== undefined, answer: (request, reply) => edgeOf(request.url ?? '/')!.answer(request, reply) },
      idleMs: timeouts.idleMs,
      headersMs: timeouts.headersMs,
    });
  };
  let delegate: { open: () => Promise<number>; privateDir: string } | undefined;
  let delegatedPort = 0;
  let copies: Promise<AcceptCopies> | undefined;

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status code',
    labelNames: ['method', 'route', 'status_code'],
    registers: [options.registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30],
    registers: [options.registry],
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (!request.routeOptions.config.longBody && !request.raw.complete) cutIfIncompleteAfter(request.raw, reply.raw, timeouts.requestMs);
  });
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    // the route pattern, never the raw URL, keeps label cardinality bounded
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status_code: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    // a 503 from readiness is an answer to a probe, not a failed request
    if (reply.statusCode >= 500 && !route.startsWith('/api/actuator/health')) request.log.warn({ method: request.method, url: request.url, statusCode: reply.statusCode }, 'request failed');
    else request.log.debug({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: reply.elapsedTime }, 'request');
  });

  app.setErrorHandler((error: FastifyError | PackyardError, request, reply) => {
    if (error instanceof PackyardError) {
      if (error.kind === 'RATE_LIMITED' && typeof error.details.retryAfterSeconds === 'number') {
        reply.header('retry-after', String(error.details.retryAfterSeconds));
      }
      if (error.kind === 'INTERNAL') request.log.error({ err: error }, 'internal error');
      return sendError(reply, error.httpStatus, error.message, error.details);
    }
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'unhandled error');
      return sendError(reply, status, 'Internal server error');
    }
    return sendError(reply, status, statusMessage(error));
  });

  const readiness = async () => {
    if (!options.isProcessReady()) return { ok: false, checks: { modules: 'starting' } };
    const results = await Promise.all(
      [...checks].map(async ([name, check]) => {
        try {
          const result = await check();
          return [name, result.ok ? 'UP' : `DOWN${result.detail ? `: ${result.detail}` : ''}`] as const;
        } catch (error) {
          return [name, `DOWN: ${(error as Error).message}`] as const;
        }
      }),
    );
    return { ok: results.every(([, state]) => state === 'UP'), checks: Object.fromEntries(results) };
  };
  const health = async (_request: FastifyRequest, reply: FastifyReply) => {
    const { ok, checks: details } = await readiness();
    return reply.code(ok ? 200 : 503).header('cache-control', 'no-store').send({ status: ok ? 'UP' : 'DOWN', components: details });
  };
  app.get('/api/actuator/health', health);
  app.get('/api/actuator/health/readiness', health);
  app.get('/api/actuator/health/liveness', async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'UP' }));

  return {
    app,
    addReadinessCheck: (name, check) => void checks.set(name, check),
    addEdgeHandler: (edge) => void edges.push(edge),
    delegatePublicPort: (open) => {
      // a folder only this user can enter: nobody else may reach the socket and claim to be a worker
      delegate = { open, privateDir: mkdtempSync(join(tmpdir(), 'packyard-http-')) };
      return join(delegate.privateDir, 'http.sock');
    },
    listen: async (port, host) => {
      if (!delegate) {
        readEdgesFirst();
        await app.listen({ port, host });
        // apt's and dnf's connections come in bursts (a CDN, a fleet's cron): accept them as fast as they come
        if (edges.length) copies = acceptThroughCopies(app.server, options.logger);
        return { port: (app.server.address() as AddressInfo).port };
      }
      const privateSocket = join(delegate.privateDir, 'http.sock');
      await app.listen({ path: privateSocket });
      delegatedPort = await delegate.open();
      return { port: delegatedPort, privateSocket };
    },
    close: async () => {
      edgeConnections?.closeIdle();
      await Promise.all([app.close(), copies?.then((accepting) => accepting.close())]);
      if (delegate) await rm(delegate.privateDir, { recursive: true, force: true });
    },
    port: () => {
      if (delegate) return delegatedPort;
      const address = app.server.address();
      return typeof address === 'object' && address ? address.port : 0;
    },
  };
}
