import type { Logger } from 'pino';
import { createEventBus } from '../bus/event-bus.factory';
import type { BusMessage, Consumer, EventBus } from '../bus/event-bus.port';
import { topicOf } from '../bus/event-bus.port';
import { runOutboxRelay, type OutboxRelayOptions } from '../bus/outbox-relay';
import { createEventStore, type StoreOptions } from '../eventsourcing/event-store.factory';
import type { EventStore, RecordedEvent } from '../eventsourcing/event-store.port';
import { recordInbox, recordInboxEach } from '../eventsourcing/inbox';
import { rebuildProjection, runProjection, type Projection, type RunningProjection } from '../readmodels/projection-runner';
import { createReadModelStore } from '../readmodels/read-model-store.factory';
import type { ReadModelStore } from '../readmodels/read-model.port';
import { defineSettings, integer, oneOf, text, type Config } from './config';
import { defineModule } from './module';

export const BUS_SETTINGS = defineSettings(
  {
    bus: oneOf('BUS', 'embedded', ['embedded', 'kafka'] as const, 'integration event bus'),
    kafkaBrokers: text('KAFKA_BROKERS', undefined, 'comma-separated Kafka brokers (BUS=kafka)'),
    kafkaSessionTimeoutMs: integer('KAFKA_SESSION_TIMEOUT_MS', 30_000, 'how long a consumer group waits for a member that stopped (a crash) before it moves its partitions; a restarted process serves at once, and its consumers get their partitions after that (BUS=kafka)', 1),
    kafkaMaxWaitMs: integer('KAFKA_MAX_WAIT_MS', 5_000, 'longest a fetch waits at the broker for new messages (BUS=kafka)', 1),
    busRetentionHours: integer('BUS_RETENTION_HOURS', 168, 'how long the embedded bus keeps a message once every consumer group has processed it, then removes it; a group no process has consumed with for that long holds nothing back (BUS=embedded; Kafka keeps its topics\' own retention)', 1),
  },
  (values) => (values.bus === 'kafka' && !values.kafkaBrokers ? ['BUS=kafka needs KAFKA_BROKERS'] : []),
);

/** The integration event bus of the process: embedded (SQLite) or Kafka, by `BUS`. */
export const busModule = defineModule<EventBus>({
  name: 'bus',
  hidden: true,
  deps: [],
  settings: BUS_SETTINGS,
  init: async (ctx) => {
    const { bus: kind, kafkaBrokers, kafkaSessionTimeoutMs, kafkaMaxWaitMs, busRetentionHours } = ctx.settings(BUS_SETTINGS);
    const bus = await createEventBus(
      kind === 'kafka'
        ? {
            kind: 'kafka',
            brokers: kafkaBrokers!.split(',').map((b) => b.trim()),
            clientId: 'packyard',
            settings: { sessionTimeoutMs: kafkaSessionTimeoutMs, heartbeatIntervalMs: Math.max(100, Math.floor(kafkaSessionTimeoutMs / 10)), maxWaitMs: kafkaMaxWaitMs },
          }
        : { kind: 'embedded', dataDir: ctx.config.dataDir, settings: { retentionMs: busRetentionHours * 3_600_000 } },
    );
    return { value: bus, stop: () => bus.close() };
  },
});

export const storeOptionsFor = (config: Config, module: string): StoreOptions =>
  config.eventStore === 'mongodb'
    ? { kind: 'mongodb', url: config.mongodbUrl!, database: `${config.mongodbDatabase}-${module}` }
    : { kind: 'sqlite', dataDir: config.dataDir, module };

export interface ModuleStores {
  events: EventStore;
  readModels: ReadModelStore;
}

/** a module's own event store and read models (a SQLite file each, or its own MongoDB database) */
export async function openModuleStores(config: Config, module: string): Promise<ModuleStores> {
  const options = storeOptionsFor(config, module);
  return { events: await createEventStore(options), readModels: await createReadModelStore(options) };
}

/** A bus subscription of a module: reacts to other modules' integration events. */
export interface Reaction {
  /** the contexts whose events it follows, e.g. `['workspace']` */
  contexts: string[];
  handle(message: BusMessage): Promise<void>;
  /** a page of messages at once, where the bus reads pages (see ManyHandler) */
  handleMany?(messages: BusMessage[]): Promise<void>;
}

/**
 * Records the `types` of `context`'s events in the module's inbox (see recordInbox): a
 * page of them in one append on the embedded bus, so a burst (the edge's traffic, one
 * event per repository served each second) costs a sync to disk per page, not per event.
 */
export function inboxReaction(events: EventStore, context: string, types: ReadonlySet<string>, contexts = [context]): Reaction {
  return {
    contexts,
    async handle(message) {
      if (types.has(message.type)) await recordInbox(events, context, message);
    },
    async handleMany(messages) {
      await recordInboxEach(events, context, messages.filter((message) => types.has(message.type)));
    },
  };
}

export interface EventSourcing extends ModuleStores {
  /**
   * resolves once every projection (or those named) reflects the log up to `position`
   * (read your writes)
   */
  caughtUp(position: number, timeoutMs?: number, projections?: readonly Projection[]): Promise<void>;
  /** a readiness check: the module's event store answers */
  ready(): Promise<{ ok: boolean }>;
  stop(): Promise<void>;
}

/**
 * Failures in a row after which a projection or the outbox relay gives up and fails its
 * module (about 20 s of backoff): a fault that outlasts that (a store or bus gone, an
 * event the code cannot handle) is for a restart and a human, not for silent retries.
 */
export const EVENT_PROCESSING_ATTEMPTS = 8;

/**
 * Runs what an event-sourced module needs beside its deciders: its projections, the
 * outbox relay that moves its integration events to `packyard.<module>.events.v1`,
 * and its reactions to other modules' events (consumer group = the module).
 */
export async function startEventSourcing(options: {
  module: string;
  stores: ModuleStores;
  bus: EventBus;
  logger: Logger;
  projections: Projection[];
  reactions?: Reaction[];
  /**
   * the consumer group of the reactions (default: the module, so its replicas share the
   * work); a replica that keeps its own read model of every event names its own group
   */
  consumerGroup?: string;
  /** what other modules receive of an integration event (see OutboxRelayOptions) */
  integrationData?: OutboxRelayOptions['integrationData'];
  /** the module's `ctx.fail`: called once processing has failed EVENT_PROCESSING_ATTEMPTS times in a row */
  fail: (error: unknown) => void;
  attempts?: number;
}): Promise<EventSourcing> {
  const { module, stores, bus, logger, fail, attempts = EVENT_PROCESSING_ATTEMPTS } = options;
  const onError = (error: unknown, event: RecordedEvent | undefined, attempt: number) => {
    const where = event ? { stream: event.stream, position: event.position } : {};
    if (attempt < attempts) return logger.error({ err: error, attempt, ...where }, 'event processing failed; retrying');
    fail(new Error(`event processing failed ${attempt} times in a row${event ? ` at ${event.stream}@${event.version}` : ''}`, { cause: error }));
  };
  const running = new Map<string, RunningProjection>();
  for (const projection of options.projections) {
    running.set(projection.name, await runProjection({ ...projection, store: stores.events, readModels: stores.readModels }, { onError }));
  }
  const relay = await runOutboxRelay({ store: stores.events, bus, checkpoints: stores.readModels, topic: topicOf(module), integrationData: options.integrationData }, { onError });
  const consumers: Consumer[] = [];
  consumers.push(
    ...(await Promise.all(
      (options.reactions ?? []).map((reaction, index) =>
        bus.subscribe(
          { group: `${options.consumerGroup ?? module}-${index}`, topics: reaction.contexts.map(topicOf) },
          (message) => reaction.handle(message),
          reaction.handleMany && ((messages) => reaction.handleMany!(messages)),
        ),
      ),
    )),
  );
  return {
    ...stores,
    caughtUp: async (position, timeoutMs = 5_000, projections = options.projections) => {
      await Promise.all(projections.map(({ name }) => running.get(name)!.waitFor(position, timeoutMs)));
    },
    ready: async () => {
      await stores.events.lastPosition();
      return { ok: true };
    },
    stop: async () => {
      for (const consumer of consumers) await consumer.stop();
      await relay.stop();
      for (const projection of running.values()) await projection.stop();
      await stores.events.close();
      await stores.readModels.close();
    },
  };
}

/** `packyard rebuild-projections --target=<module>`: empties the module's read models and replays its log */
export async function rebuildModuleProjections(config: Config, module: string, projections: Projection[], logger: Logger) {
  const stores = await openModuleStores(config, module);
  try {
    for (const projection of projections) {
      const started = performance.now();
      const result = await rebuildProjection({ ...projection, store: stores.events, readModels: stores.readModels });
      logger.info({ module, projection: projection.name, events: result.events, ms: Math.round(performance.now() - started) }, 'projection rebuilt');
    }
  } finally {
    await stores.events.close();
    await stores.readModels.close();
  }
}
