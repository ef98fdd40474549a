import { randomUUID } from 'node:crypto';
import type { Decider } from './decider';
import { ConcurrencyError, type EventStore, type NewEvent, type RecordedEvent } from './event-store.port';
import type { Fence } from './lease.decider';

/** The shape deciders emit; the store adds id, stream, version and position. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/** an aggregate as last read or written, by stream */
export type AggregateCache<State> = Map<string, { state: State; version: number }>;

export interface HandleCommandOptions<Event, State = unknown> {
  /** how often to re-read, re-decide and re-append after a `ConcurrencyError` (default 3) */
  retries?: number;
  /** marks the events the outbox relay moves onto the bus */
  isIntegration?: (event: Event) => boolean;
  /** stored with every event (caller, correlation id, ...) */
  metadata?: Record<string, unknown>;
  /**
   * decide on the state kept here instead of reading the stream again (a long stream
   * written by one writer); another writer makes the append fail, and the command is
   * decided again on the stream as stored
   */
  cache?: AggregateCache<State>;
  /** the writer's lease: the append is refused (LeaseLostError, not retried) once another writer took it over */
  fence?: Fence;
}

export interface CommandResult<State, Event> {
  newEvents: Event[];
  state: State;
  nextExpectedVersion: number;
  /** position of the last event written; wait for projections to reach it to read your writes */
  lastPosition: number;
}

export const toDomainEvent = <Event extends DomainEvent>(recorded: RecordedEvent): Event =>
  ({ type: recorded.type, data: recorded.data }) as Event;

/**
 * Folds a stream into state: the decider's view of an aggregate. Given a view read earlier
 * (`since`), only the events written after it are read and folded in: a long stream that
 * other writers may have appended to is brought up to date in one short read.
 */
export async function loadAggregate<State, Command, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Decider<State, Command, Event>,
  since: { state: State; version: number } = { state: decider.initialState(), version: 0 },
): Promise<{ state: State; version: number }> {
  const recorded = await store.readStream(stream, since.version + 1);
  const state = recorded.reduce((current, event) => decider.evolve(current, toDomainEvent<Event>(event)), since.state);
  return { state, version: recorded.at(-1)?.version ?? since.version };
}

/**
 * Reads the stream, decides, and appends with the version it read. A concurrent writer
 * makes the append fail with `ConcurrencyError`; the command is then decided again on the
 * fresh state, so it never overwrites what the other writer decided. Errors thrown by
 * `decide` (domain rules) pass through untouched.
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  { retries = 3, isIntegration = () => false, metadata, cache, fence }: HandleCommandOptions<Event, State> = {},
): Promise<CommandResult<State, Event>> {
  for (let attempt = 0; ; attempt++) {
    const { state, version } = cache?.get(stream) ?? (await loadAggregate(store, stream, decider));
    const newEvents = decider.decide(command, state);
    const toAppend: NewEvent[] = newEvents.map((event) => ({
      id: randomUUID(),
      type: event.type,
      data: event.data,
      ...(isIntegration(event) ? { integration: true } : {}),
      ...(metadata ? { metadata } : {}),
    }));
    try {
      const result = await store.append(stream, version === 0 ? 'NO_STREAM' : version, toAppend, { fence });
      const next = newEvents.reduce((current, event) => decider.evolve(current, event), state);
      cache?.set(stream, { state: next, version: result.nextExpectedVersion });
      return { newEvents, state: next, ...result };
    } catch (error) {
      cache?.delete(stream);
      if (!(error instanceof ConcurrencyError) || attempt >= retries) throw error;
    }
  }
}
