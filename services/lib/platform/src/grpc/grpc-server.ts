import { createServer, ServerError, type CompatServiceDefinition, type Server } from 'nice-grpc';
import { ClientError, Metadata, Status, type CallContext, type CallOptions, type ServerMiddlewareCall } from 'nice-grpc-common';
import * as serviceDefinitions from 'nice-grpc/lib/service-definitions/index.js';
import type { AnyMethodDefinition } from 'nice-grpc/lib/service-definitions/index.js';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import { HealthCheckResponse_ServingStatus, HealthDefinition } from '@packyard/proto/grpc/health/v1/health';
import { PackyardError } from '../errors/errors';
import { CALLER_METADATA_KEY, CallerAssertionError, type Caller, type CallerAssertions } from './caller';

export const ERROR_TRAILER_KEY = 'x-packyard-error';

export interface CallerContext {
  /** who made the call, as the caller assertion vouches; a service caller when a module calls on its own behalf */
  caller: Caller;
}

// health checks answer probes and load balancers, which hold no key
const UNAUTHENTICATED_SERVICE = '/grpc.health.v1.Health/';
const PROBE: Caller = { userId: '', kind: 'probe', scopes: [], repositoryId: '', tokenId: '' };

export type PackyardGrpcServer = Server<CallerContext>;

/** a service's methods by name, with their paths and serializers: what nice-grpc makes of a definition (its own function, not in its typings) */
export const methodsOf = (definition: CompatServiceDefinition): Record<string, AnyMethodDefinition> =>
  (serviceDefinitions as unknown as { normalizeServiceDefinition(definition: CompatServiceDefinition): Record<string, AnyMethodDefinition> }).normalizeServiceDefinition(definition);

/** what middleware is told of a unary method */
export const unaryDescriptor = (method: AnyMethodDefinition) => ({ path: method.path, requestStream: false, responseStream: false, options: method.options });

/** a unary call's transport: what nice-grpc's channel does for a client, here without one */
export type UnaryTransport = <Req, Res>(request: Req, options: CallOptions) => AsyncGenerator<never, Res, undefined>;

/**
 * The unary methods of the services this process serves, for clients in the same process:
 * the call goes through the server's middleware (caller assertion, error table, metrics)
 * and the method's own serializers (the handler gets a copy, as over the network), but not
 * through HTTP/2 on loopback, which cost a few milliseconds a hop on a busy event loop.
 */
export interface LocalServices {
  /** the transport of `method` to its implementation here; undefined while its module has not added it, or for a streaming method */
  transport(method: AnyMethodDefinition): UnaryTransport | undefined;
  /** refuses new calls (as a server that shuts down does) and waits for those under way */
  drain(): Promise<void>;
}

const typeOf = (call: { requestStream: boolean; responseStream: boolean }) =>
  call.requestStream ? (call.responseStream ? 'bidi_stream' : 'client_stream') : call.responseStream ? 'server_stream' : 'unary';

/**
 * The gRPC server of a process: every module's service is added to it. Middleware
 * refuses a call whose caller assertion is missing or does not verify (UNAUTHENTICATED),
 * maps domain errors through the one error table, logs and records the standard
 * grpc_server_* metrics in the process registry.
 */
export function createGrpcServer(registry: Registry, logger: Logger, servedModules: () => string[], assertions: CallerAssertions): { server: PackyardGrpcServer; local: LocalServices } {
  const handled = new Counter({
    name: 'grpc_server_handled_total',
    help: 'Total number of RPCs completed on the server, regardless of success or failure.',
    labelNames: ['grpc_type', 'grpc_service', 'grpc_method', 'grpc_code'],
    registers: [registry],
  });
  const handling = new Histogram({
    name: 'grpc_server_handling_seconds',
    help: 'Histogram of response latency of gRPC that had been application-level handled by the server.',
    labelNames: ['grpc_type', 'grpc_service', 'grpc_method', 'grpc_code'],
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });

  async function* observe<Req, Res>(call: ServerMiddlewareCall<Req, Res, CallerContext>, context: CallContext) {
    const started = process.hrtime.bigint();
    const [, service, method] = call.method.path.split('/');
    let code = Status.OK;
    try {
      const caller = call.method.path.startsWith(UNAUTHENTICATED_SERVICE) ? PROBE : await verifiedCaller(context.metadata);
      return yield* call.next(call.request, { ...context, caller });
    } catch (error) {
      if (error instanceof PackyardError) {
        code = error.grpcStatus;
        context.trailer.set(ERROR_TRAILER_KEY, JSON.stringify({ kind: error.kind, code: error.code, details: error.details }));
        throw new ServerError(error.grpcStatus, error.message);
      }
      if (error instanceof ServerError) {
        code = error.code;
        throw error;
      }
      if (context.signal.aborted) {
        code = Status.CANCELLED;
        throw error;
      }
      code = Status.INTERNAL;
      logger.error({ err: error, method: call.method.path }, 'gRPC handler failed');
      throw new ServerError(Status.INTERNAL, 'Internal error');
    } finally {
      const labels = { grpc_type: typeOf(call), grpc_service: service, grpc_method: method, grpc_code: Status[code] };
      handled.inc(labels);
      handling.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      logger.debug({ method: call.method.path, code: Status[code] }, 'gRPC call');
    }
  }

  const verifiedCaller = async (metadata: Metadata): Promise<Caller> => {
    const assertion = metadata.get(CALLER_METADATA_KEY);
    if (typeof assertion !== 'string' || assertion === '') throw new ServerError(Status.UNAUTHENTICATED, 'the call carries no caller assertion');
    try {
      return await assertions.verify(assertion);
    } catch (error) {
      if (error instanceof CallerAssertionError) throw new ServerError(Status.UNAUTHENTICATED, error.message);
      throw error;
    }
  };

  const networked = createServer().use(observe);
  const local = localServices(observe);
  const server: PackyardGrpcServer = {
    ...networked,
    add(definition, implementation) {
      local.add(definition, implementation);
      networked.add(definition, implementation);
    },
  };
  // Standard health protocol: "" is the whole process, otherwise a module name.
  server.add(HealthDefinition, {
    async check(request) {
      const modules = servedModules();
      if (request.service === '' || modules.includes(request.service)) return { status: HealthCheckResponse_ServingStatus.SERVING };
      throw new ServerError(Status.NOT_FOUND, `module ${request.service} is not served here`);
    },
  });
  return { server, local };
}

type ServerMiddleware = <Req, Res>(call: ServerMiddlewareCall<Req, Res, CallerContext>, context: CallContext) => AsyncGenerator<Res, Res | void, undefined>;

function localServices(middleware: ServerMiddleware): LocalServices & { add(definition: CompatServiceDefinition, implementation: object): void } {
  const handlers = new Map<string, (request: unknown, context: CallContext & CallerContext) => Promise<unknown>>();
  const underWay = new Set<Promise<unknown>>();
  let draining = false;

  async function call<Req, Res>(method: AnyMethodDefinition, handler: (request: unknown, context: CallContext & CallerContext) => Promise<unknown>, request: Req, options: CallOptions): Promise<Res> {
    if (draining) throw new ClientError(method.path, Status.UNAVAILABLE, 'the server is shutting down');
    const signal = options.signal ?? new AbortController().signal;
    const context: CallContext = { metadata: options.metadata ?? Metadata(), peer: 'in-process', header: Metadata(), sendHeader: () => undefined, trailer: Metadata(), signal };
    const served = drained(
      middleware<Req, Res>(
        {
          method: unaryDescriptor(method),
          requestStream: false,
          request: method.requestDeserialize(method.requestSerialize(request)) as Req,
          responseStream: false,
          next: (copy, withCaller) => returning(async () => (await handler(copy, withCaller as CallContext & CallerContext)) as Res),
        },
        context,
      ),
    );
    underWay.add(served);
    try {
      // a deadline or a cancellation ends the call for its caller at once, as a channel does
      const response = await Promise.race([served, aborted(signal)]);
      options.onTrailer?.(context.trailer);
      return method.responseDeserialize(method.responseSerialize(response)) as Res;
    } catch (error) {
      options.onTrailer?.(context.trailer);
      throw error instanceof ServerError ? new ClientError(method.path, error.code, error.details) : error;
    } finally {
      underWay.delete(served);
    }
  }

  return {
    add(definition, implementation) {
      for (const [name, method] of Object.entries(methodsOf(definition))) {
        const handler = (implementation as Record<string, (request: unknown, context: CallContext & CallerContext) => Promise<unknown>>)[name];
        if (!method.requestStream && !method.responseStream && handler) handlers.set(method.path, handler.bind(implementation));
      }
    },
    transport(method) {
      const handler = handlers.get(method.path);
      return handler && ((request, options) => returning(() => call(method, handler, request, options)));
    },
    async drain() {
      draining = true;
      await Promise.allSettled([...underWay]);
    },
  };
}

/** a unary step of a middleware chain: it returns the one message and yields none, as nice-grpc's own transports do */
// eslint-disable-next-line require-yield
async function* returning<T>(message: () => Promise<T>): AsyncGenerator<never, T, undefined> {
  return await message();
}

/** a unary middleware chain's message: it returns one and yields none */
async function drained<Res>(generator: AsyncGenerator<Res, Res | void, undefined>): Promise<Res> {
  const result = await generator.next();
  if (!result.done || result.value === undefined) throw new Error('a unary call yielded a message or returned none');
  return result.value;
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export { Metadata };
