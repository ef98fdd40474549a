import type { Fence, LeaseStore } from './lease.decider';

/**
 * The event store port. Every aggregate is a stream `<aggregate>-<id>`; appends use
 * optimistic concurrency. Adapters: SQLite (single node), MongoDB (cluster).
 */
export interface NewEvent<T extends string = string, D = unknown> {
  /** globally unique id, used by consumers to deduplicate */
  id: string;
  type: T;
  data: D;
  /** integration events are also relayed to the bus by the outbox relay */
  integration?: boolean;
  /** metadata such as the caller, correlation id, time */
  metadata?: Record<string, unknown>;
}

export interface RecordedEvent<T extends string = string, D = unknown> extends NewEvent<T, D> {
  stream: string;
  /** 1-based version of the event within its stream */
  version: number;
  /** 1-based global position across all streams of this store */
  position: number;
  /** ISO-8601 time the store recorded the event */
  recordedAt: string;
}

/** `NO_STREAM` means the stream must not exist yet; `ANY` skips the check. */
export type ExpectedVersion = number | 'NO_STREAM' | 'ANY';

export interface AppendResult {
  nextExpectedVersion: number;
  lastPosition: number;
}

export interface AppendOptions {
  /** refuse the append (LeaseLostError, nothing written) unless this lease is still held at this epoch, checked in the same transaction */
  fence?: Fence;
}

/** one stream's part of `appendEach` */
export interface StreamAppend {
  stream: string;
  expected: ExpectedVersion;
  events: NewEvent[];
}

export interface EventStore {
  append(stream: string, expected: ExpectedVersion, events: NewEvent[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Appends to several streams together (SQLite: one transaction, so one sync to disk for
   * all of them), each checked against its own expected version: an append that fails its
   * check is not made, its result is the ConcurrencyError, and the others are made.
   */
  appendEach(appends: readonly StreamAppend[]): Promise<Array<AppendResult | ConcurrencyError>>;
  /** leases kept in the same store, so that appends can be fenced by them */
  readonly leases: LeaseStore;
  readStream(stream: string, fromVersion?: number): Promise<RecordedEvent[]>;
  /** events with position > fromPosition, in order, at most `limit` */
  readAll(fromPosition: number, limit?: number): Promise<RecordedEvent[]>;
  /** the highest position written so far (0 for an empty store) */
  lastPosition(): Promise<number>;
  /**
   * calls `handler` for every event after `fromPosition`, then for new ones as they are
   * appended. A handler that throws is retried with backoff on the same event (order is
   * never broken); `onError` hears about each failure.
   */
  subscribe(
    fromPosition: number,
    handler: (event: RecordedEvent) => Promise<void>,
    options?: SubscribeOptions,
  ): Subscription;
  /** like `subscribe`, a page of events at a time (a failing page is retried whole) */
  subscribeInBatches(
    fromPosition: number,
    handler: (events: RecordedEvent[]) => Promise<void>,
    options?: SubscribeOptions,
  ): Subscription;
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /**
   * `event` is absent when reading the log itself failed; `attempt` counts the failures in
   * a row (1 for the first), so a caller can give up on a fault that does not pass
   */
  onError?: (error: unknown, event: RecordedEvent | undefined, attempt: number) => void;
}

export interface Subscription {
  stop(): Promise<void>;
}

/** An append whose expected version did not match: nothing of the batch was written. */
export class ConcurrencyError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`Stream ${stream} is at version ${actual}, expected ${expected}`);
    this.name = 'ConcurrencyError';
  }
}
