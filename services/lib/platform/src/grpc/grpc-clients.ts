import { connectivityState } from '@grpc/grpc-js';
import { ClientError, createChannel, createClientFactory, type Channel, type Client, type CompatServiceDefinition } from 'nice-grpc';
import { Metadata, Status, type CallOptions, type ClientMiddlewareCall } from 'nice-grpc-common';
import { Counter, Histogram, type Registry } from 'prom-client';
import { PackyardError, kindOfGrpcStatus, type ErrorKind } from '../errors/errors';
import { CALLER_METADATA_KEY, type Caller, type CallerAssertions } from './caller';
import { ERROR_TRAILER_KEY, methodsOf, unaryDescriptor, type LocalServices } from './grpc-server';

export interface CallerOptions {
  caller: Caller;
}

export type PackyardClient<D extends CompatServiceDefinition> = Client<D, CallerOptions>;

export interface GrpcClients {
  /**
   * a client of `module`'s service: in this process when it runs here (and no address is
   * set for it), else over a channel that opens on first use; calls take turns among
   * the module's replicas, passing over one whose last connection attempt failed while
   * another is not in that state (its channel fails every call at once until it reconnects)
   */
  client<D extends CompatServiceDefinition>(definition: D, module: string): PackyardClient<D>;
  /** one client per replica of `module` (every address its `<MODULE>_GRPC_ADDR` lists), to ask each of them */
  replicaClients<D extends CompatServiceDefinition>(definition: D, module: string): PackyardClient<D>[];
  close(): void;
}

/**
 * Clients for calls between modules: a deadline on every call, the caller as a signed
 * assertion in metadata (a call without a caller carries none and is refused), standard grpc_client_* metrics, and status errors turned back into the
 * domain error they came from (kind and code travel in a trailer).
 */
export function createGrpcClients(options: {
  registry: Registry;
  deadlineMs: number;
  assertions: CallerAssertions;
  /** host:port of every process serving a module */
  addressesOf: (module: string) => string[];
  /** this process's own services, for a module it serves itself and whose calls no address sends elsewhere */
  local?: (module: string) => LocalServices | undefined;
}): GrpcClients {
  const handled = new Counter({
    name: 'grpc_client_handled_total',
    help: 'Total number of RPCs completed by the client, regardless of success or failure.',
    labelNames: ['grpc_type', 'grpc_service', 'grpc_method', 'grpc_code'],
    registers: [options.registry],
  });
  const handling = new Histogram({
    name: 'grpc_client_handling_seconds',
    help: 'Histogram of response latency (seconds) of the gRPC until it is finished by the application.',
    labelNames: ['grpc_type', 'grpc_service', 'grpc_method', 'grpc_code'],
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [options.registry],
  });

  async function* packyardCall<Req, Res>(call: ClientMiddlewareCall<Req, Res>, callOptions: CallOptions & Partial<CallerOptions>) {
    const { caller, ...rest } = callOptions;
    const metadata = Metadata(rest.metadata);
    if (caller) metadata.set(CALLER_METADATA_KEY, await options.assertions.assert(caller));
    let trailer: Metadata | undefined;
    const started = process.hrtime.bigint();
    const [, service, method] = call.method.path.split('/');
    let code = Status.OK;
    try {
      const deadline = AbortSignal.timeout(options.deadlineMs);
      return yield* call.next(call.request, {
        ...rest,
        signal: rest.signal ? AbortSignal.any([rest.signal, deadline]) : deadline,
        metadata,
        onTrailer: (value) => {
          trailer = value;
          rest.onTrailer?.(value);
        },
      });
    } catch (error) {
      if (error instanceof ClientError) {
        code = error.code;
        const raw = trailer?.get(ERROR_TRAILER_KEY);
        if (typeof raw === 'string') {
          const parsed = JSON.parse(raw) as { kind: ErrorKind; code: string; details: Record<string, unknown> };
          throw new PackyardError(parsed.kind, parsed.code, error.details, parsed.details);
        }
        const kind = kindOfGrpcStatus(error.code);
        throw new PackyardError(kind, `PACKYARD_GRPC_${Status[error.code]}`, kind === 'INTERNAL' ? 'Internal error' : `${service}.${method}: ${error.details}`);
      }
      if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
        code = Status.DEADLINE_EXCEEDED;
        throw new PackyardError('TIMEOUT', 'PACKYARD_GRPC_DEADLINE_EXCEEDED', `${service}.${method} did not answer within ${options.deadlineMs} ms`);
      }
      code = Status.UNKNOWN;
      throw error;
    } finally {
      const labels = { grpc_type: 'unary', grpc_service: service, grpc_method: method, grpc_code: Status[code] };
      handled.inc(labels);
      handling.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  const factory = createClientFactory().use(packyardCall);
  const channels = new Map<string, Channel>();
  const channelTo = (address: string) => {
    let channel = channels.get(address);
    if (!channel) {
      channel = createChannel(address);
      channels.set(address, channel);
    }
    return channel;
  };

  const clientAt = <D extends CompatServiceDefinition>(definition: D, address: string) => factory.create(definition, channelTo(address)) as PackyardClient<D>;

  /**
   * A client whose unary calls go straight to this process's implementation, through the
   * same middleware on both ends; a method not (yet) added here, or a streaming one, takes the network.
   */
  const localClient = <D extends CompatServiceDefinition>(definition: D, services: LocalServices, networked: () => PackyardClient<D>): PackyardClient<D> => {
    const client: Record<string, (request: unknown, callOptions?: CallOptions & Partial<CallerOptions>) => unknown> = {};
    for (const [name, method] of Object.entries(methodsOf(definition))) {
      if (method.requestStream || method.responseStream) {
        client[name] = (request, callOptions) => (networked() as unknown as typeof client)[name](request, callOptions);
        continue;
      }
      const descriptor = unaryDescriptor(method);
      client[name] = async (request, callOptions = {}) => {
        const transport = services.transport(method);
        if (!transport) return (networked() as unknown as typeof client)[name](request, callOptions);
        const result = await packyardCall({ method: descriptor, requestStream: false, request, responseStream: false, next: transport }, callOptions).next();
        return result.value;
      };
    }
    return client as unknown as PackyardClient<D>;
  };

  const localClientOf = <D extends CompatServiceDefinition>(definition: D, module: string): PackyardClient<D> | undefined => {
    const services = options.local?.(module);
    let networked: PackyardClient<D> | undefined;
    return services && localClient(definition, services, () => (networked ??= clientAt(definition, options.addressesOf(module)[0])));
  };

  return {
    client<D extends CompatServiceDefinition>(definition: D, module: string): PackyardClient<D> {
      const local = localClientOf(definition, module);
      if (local) return local;
      let replicas: { client: PackyardClient<D>; channel: Channel }[] | undefined;
      let turn = 0;
      const next = () => {
        // The serving address may only be known once this process's server listens.
        replicas ??= options.addressesOf(module).map((address) => ({ client: clientAt(definition, address), channel: channelTo(address) }));
        for (let tried = 1; tried < replicas.length; tried++) {
          const replica = replicas[turn++ % replicas.length];
          if (replica.channel.getConnectivityState(false) !== connectivityState.TRANSIENT_FAILURE) return replica.client;
        }
        return replicas[turn++ % replicas.length].client;
      };
      return new Proxy({} as PackyardClient<D>, {
        get(_target, method: string) {
          return (...args: unknown[]) => (next() as unknown as Record<string, (...a: unknown[]) => unknown>)[method](...args);
        },
      });
    },
    replicaClients<D extends CompatServiceDefinition>(definition: D, module: string): PackyardClient<D>[] {
      const local = localClientOf(definition, module);
      if (local) return [local];
      return options.addressesOf(module).map((address) => clientAt(definition, address));
    },
    close() {
      for (const channel of channels.values()) channel.close();
      channels.clear();
    },
  };
}
