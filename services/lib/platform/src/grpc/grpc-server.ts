import { createServer, ServerError, type Server } from 'nice-grpc';
import { Metadata, Status, type CallContext, type ServerMiddlewareCall } from 'nice-grpc-common';
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

const typeOf = (call: { requestStream: boolean; responseStream: boolean }) =>
  call.requestStream ? (call.responseStream ? 'bidi_stream' : 'client_stream') : call.responseStream ? 'server_stream' : 'unary';

/**
 * The gRPC server of a process: every module's service is added to it. Middleware
 * refuses a call whose caller assertion is missing or does not verify (UNAUTHENTICATED),
 * maps domain errors through the one error table, logs and records the standard
 * grpc_server_* metrics in the process registry.
 */
export function createGrpcServer(registry: Registry, logger: Logger, servedModules: () => string[], assertions: CallerAssertions): PackyardGrpcServer {
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

  const server = createServer().use(observe);
  // Standard health protocol: "" is the whole process, otherwise a module name.
  server.add(HealthDefinition, {
    async check(request) {
      const modules = servedModules();
      if (request.service === '' || modules.includes(request.service)) return { status: HealthCheckResponse_ServingStatus.SERVING };
      throw new ServerError(Status.NOT_FOUND, `module ${request.service} is not served here`);
    },
  });
  return server;
}

export { Metadata };
