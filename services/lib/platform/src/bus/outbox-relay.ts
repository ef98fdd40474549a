import type { EventStore, RecordedEvent, SubscribeOptions } from '../eventsourcing/event-store.port';
import type { BusMessage, EventBus } from './event-bus.port';

/** Where the relay remembers how far it got; a ReadModelStore is one. */
export interface CheckpointStore {
  getCheckpoint(name: string): Promise<number>;
  setCheckpoint(name: string, position: number): Promise<void>;
}

export interface OutboxRelayOptions {
  store: EventStore;
  bus: EventBus;
  checkpoints: CheckpointStore;
  /** `packyard.<context>.events.v1` */
  topic: string;
  /** checkpoint name; one relay per event store */
  name?: string;
  /**
   * what other modules receive of an integration event (default: its data as recorded): a
   * module leaves out what stays its own, as the token module does with a token's sealed value
   */
  integrationData?: (event: RecordedEvent) => unknown;
}

/** The bus message for an integration event: keyed by its stream (`<aggregate>-<id>`), so per-aggregate order holds. */
export const toBusMessage = (event: RecordedEvent, data: unknown): BusMessage => ({
  id: event.id,
  type: event.type,
  key: event.stream,
  data,
  metadata: { ...event.metadata, stream: event.stream, version: event.version, recordedAt: event.recordedAt },
});

/**
 * Moves integration events from the event store onto the bus. It reads the store from a
 * checkpoint (never an after-commit hook, which a crash would skip) and saves the
 * checkpoint only after the bus acknowledged: a crash in between publishes again, and
 * consumers drop the duplicate by event id.
 */
export async function runOutboxRelay(
  { store, bus, checkpoints, topic, name = 'outbox-relay', integrationData = (event) => event.data }: OutboxRelayOptions,
  options: SubscribeOptions = {},
): Promise<{ stop(): Promise<void> }> {
  const from = await checkpoints.getCheckpoint(name);
  // a page of the log goes out in one publish: one durable write for a burst of uploads
  return store.subscribeInBatches(
    from,
    async (events) => {
      await bus.publish(topic, events.filter((event) => event.integration).map((event) => toBusMessage(event, integrationData(event))));
      await checkpoints.setCheckpoint(name, events.at(-1)!.position);
    },
    options,
  );
}
