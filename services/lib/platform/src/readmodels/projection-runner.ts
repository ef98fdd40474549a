import type { EventStore, RecordedEvent, SubscribeOptions } from '../eventsourcing/event-store.port';
import type { ReadModels, ReadModelStore } from './read-model.port';

/**
 * A projection turns the event log into documents. `handle` must be idempotent (upserts
 * keyed by id): after a crash between a document write and its checkpoint the event is
 * handled again.
 */
export interface Projection {
  name: string;
  /** the collections this projection owns; a rebuild empties them */
  collections: string[];
  /** per collection, the fields its readers find documents by (indexed before the first event is projected) */
  indexes?: Record<string, string[]>;
  handle(event: RecordedEvent, readModels: ReadModels): Promise<void>;
}

/**
 * Hands one event to the projection, its writes recording the event's log position: the
 * replicas of a module project one log into one store, and one that lags then cannot
 * write an older state of a document over a newer one (ReadModelStore.at).
 */
export const project = (projection: Pick<Projection, 'handle'>, event: RecordedEvent, readModels: ReadModelStore) =>
  projection.handle(event, readModels.at(event.position));

export interface ProjectionContext extends Projection {
  store: EventStore;
  readModels: ReadModelStore;
}

export interface RunningProjection {
  /** resolves once every event up to `position` is reflected in the read models */
  waitFor(position: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export class ProjectionTimeoutError extends Error {
  constructor(projection: string, position: number) {
    super(`Projection ${projection} did not reach position ${position} in time`);
    this.name = 'ProjectionTimeoutError';
  }
}

/**
 * Follows the log from the projection's checkpoint a page at a time, saving the checkpoint
 * once per page: a page of events the projection ignores (another module's traffic, say)
 * then costs one write, not one per event. Waiters are released as each event is projected;
 * a page that fails is projected again whole, which `handle`'s idempotence allows.
 */
export async function runProjection(projection: ProjectionContext, options: SubscribeOptions = {}): Promise<RunningProjection> {
  const { store, readModels, name } = projection;
  for (const [collection, fields] of Object.entries(projection.indexes ?? {})) for (const field of fields) await readModels.index(collection, field);
  let projected = await readModels.getCheckpoint(name);
  const waiters = new Set<{ position: number; resolve: () => void }>();
  const subscription = store.subscribeInBatches(
    projected,
    async (events) => {
      for (const event of events) {
        try {
          await project(projection, event, readModels);
        } catch (error) {
          // the subscription reports the page's first event; the log should name the one that failed
          throw new Error(`projection ${name} failed on ${event.stream}@${event.version} (position ${event.position})`, { cause: error });
        }
        projected = Math.max(projected, event.position);
        for (const waiter of waiters) if (waiter.position <= projected) waiter.resolve();
      }
      await readModels.setCheckpoint(name, events.at(-1)!.position);
    },
    options,
  );
  return {
    waitFor(position, timeoutMs = 10_000) {
      if (position <= projected) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const waiter = {
          position,
          resolve: () => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new ProjectionTimeoutError(name, position));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    stop: () => subscription.stop(),
  };
}

/**
 * A projection new to a module whose events the log did not hold before its first start
 * begins where `older`, a projection of the same log, is, instead of reading the whole log
 * (traffic included) before it is current. A checkpoint of its own is left alone, and on a
 * fresh data directory both are at the beginning.
 */
export async function startProjectionWhere(readModels: Pick<ReadModelStore, 'getCheckpoint' | 'setCheckpoint'>, projection: string, older: string): Promise<void> {
  if ((await readModels.getCheckpoint(projection)) > 0) return;
  const position = await readModels.getCheckpoint(older);
  if (position > 0) await readModels.setCheckpoint(projection, position);
}

/**
 * Empties the projection's collections and checkpoint, then replays the whole log. Run it
 * while the projection is not running (`packyard rebuild-projections --target=<module>`).
 */
export async function rebuildProjection(projection: ProjectionContext, batchSize = 1000): Promise<{ events: number; position: number }> {
  const { store, readModels, name, collections } = projection;
  await readModels.reset(name, collections);
  let position = 0;
  let events = 0;
  for (;;) {
    const batch = await store.readAll(position, batchSize);
    if (batch.length === 0) return { events, position };
    for (const event of batch) await project(projection, event, readModels);
    position = batch.at(-1)!.position;
    events += batch.length;
    await readModels.setCheckpoint(name, position);
  }
}
