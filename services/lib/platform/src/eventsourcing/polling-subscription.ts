import { backoffDelay, Pause } from './pause';
import type { EventStore, RecordedEvent, SubscribeOptions, Subscription } from './event-store.port';

export interface PollingSource {
  readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]>;
}

export interface PollingSettings {
  /** how often new events are looked for when no append of this process woke the subscriptions (SQLite: one check of the file, see watchOtherWriters) */
  pollIntervalMs: number;
  batchSize: number;
  retryInitialMs: number;
  retryMaxMs: number;
}

export const defaultPollingSettings: PollingSettings = {
  pollIntervalMs: 50,
  batchSize: 500,
  retryInitialMs: 100,
  retryMaxMs: 5_000,
};


const reportToConsole = (error: unknown, event?: RecordedEvent) =>
  console.error(
    event
      ? `subscription handler failed on ${event.stream}@${event.version} (position ${event.position})`
      : 'subscription could not read the event log',
    error,
  );

/**
 * Reads the log in position order from a checkpoint and hands the events to the handler,
 * one at a time or a page at a time; a failing handler is retried on the same events so
 * order is never broken. Stores whose commits become visible in position order (SQLite,
 * MongoDB with transactions) can poll safely; `notify` keeps latency low between polls.
 */
function startPollingSubscription(
  source: PollingSource,
  settings: PollingSettings,
  fromPosition: number,
  handler: (events: RecordedEvent[]) => Promise<void>,
  oneAtATime: boolean,
  options: SubscribeOptions = {},
) {
  const onError = options.onError ?? reportToConsole;
  const idle = new Pause();
  const backoff = new Pause();
  let stopped = false;
  let checkpoint = fromPosition;

  const deliver = async (events: RecordedEvent[]) => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        await handler(events);
        checkpoint = events.at(-1)!.position;
        return;
      } catch (error) {
        onError(error, events[0], attempt);
        await backoff.for(backoffDelay(attempt, settings.retryInitialMs, settings.retryMaxMs));
      }
    }
  };

  const loop = (async () => {
    for (let failedReads = 0; !stopped; ) {
      let page: RecordedEvent[];
      try {
        page = await source.readAll(checkpoint, settings.batchSize);
        failedReads = 0;
      } catch (error) {
        if (stopped) return;
        onError(error, undefined, ++failedReads);
        await backoff.for(backoffDelay(failedReads, settings.retryInitialMs, settings.retryMaxMs));
        continue;
      }
      const units = page.length === 0 ? [] : oneAtATime ? page.map((event) => [event]) : [page];
      for (const unit of units) {
        if (stopped) return;
        await deliver(unit);
      }
      if (page.length < settings.batchSize && !stopped) await idle.for(settings.pollIntervalMs);
    }
  })();

  return {
    notify: () => idle.interrupt(),
    async stop() {
      stopped = true;
      idle.interrupt();
      backoff.interrupt();
      await loop;
    },
  };
}

/** The subscriptions of one store: appends wake them, closing the store stops them. */
export class Subscriptions {
  private readonly running = new Set<ReturnType<typeof startPollingSubscription>>();

  constructor(
    private readonly source: PollingSource,
    private readonly settings: PollingSettings = defaultPollingSettings,
  ) {}

  subscribe(...[fromPosition, handler, options]: Parameters<EventStore['subscribe']>): Subscription {
    return this.start(fromPosition, (events) => handler(events[0]), true, options);
  }

  subscribeInBatches(...[fromPosition, handler, options]: Parameters<EventStore['subscribeInBatches']>): Subscription {
    return this.start(fromPosition, handler, false, options);
  }

  private start(fromPosition: number, handler: (events: RecordedEvent[]) => Promise<void>, oneAtATime: boolean, options?: SubscribeOptions) {
    const subscription = startPollingSubscription(this.source, this.settings, fromPosition, handler, oneAtATime, options);
    this.running.add(subscription);
    return {
      stop: async () => {
        this.running.delete(subscription);
        await subscription.stop();
      },
    };
  }

  /** called by the store after an append */
  notify(): void {
    for (const subscription of this.running) subscription.notify();
  }

  async stopAll(): Promise<void> {
    const running = [...this.running];
    this.running.clear();
    await Promise.all(running.map((subscription) => subscription.stop()));
  }
}
