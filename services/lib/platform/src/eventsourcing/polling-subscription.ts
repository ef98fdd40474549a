import { backoffDelay, Pause } from './pause';
import type { RecordedEvent, SubscribeOptions, Subscription } from './event-store.port';

export interface PollingSource {
  readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]>;
}

export interface PollingSettings {
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

export interface PollingSubscription extends Subscription {
  /** wakes the subscription when it is idle (called by the store after an append) */
  notify(): void;
}

const reportToConsole = (error: unknown, event?: RecordedEvent) =>
  console.error(
    event
      ? `subscription handler failed on ${event.stream}@${event.version} (position ${event.position})`
      : 'subscription could not read the event log',
    error,
  );

/**
 * Reads the log in position order from a checkpoint and hands each event to the handler;
 * a failing handler is retried on the same event so order is never broken. Stores whose
 * commits become visible in position order (SQLite, MongoDB with transactions) can poll
 * safely; the store's in-process notify keeps latency low between polls.
 */
export function startPollingSubscription(
  source: PollingSource,
  settings: PollingSettings,
  fromPosition: number,
  handler: (event: RecordedEvent) => Promise<void>,
  options: SubscribeOptions = {},
): PollingSubscription {
  const onError = options.onError ?? reportToConsole;
  const idle = new Pause();
  const backoff = new Pause();
  let stopped = false;
  let checkpoint = fromPosition;

  const deliver = async (event: RecordedEvent) => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        await handler(event);
        checkpoint = event.position;
        return;
      } catch (error) {
        onError(error, event);
        await backoff.for(backoffDelay(attempt, settings.retryInitialMs, settings.retryMaxMs));
      }
    }
  };

  const loop = (async () => {
    for (let failedReads = 0; !stopped; ) {
      let batch: RecordedEvent[];
      try {
        batch = await source.readAll(checkpoint, settings.batchSize);
        failedReads = 0;
      } catch (error) {
        if (stopped) return;
        onError(error);
        await backoff.for(backoffDelay(++failedReads, settings.retryInitialMs, settings.retryMaxMs));
        continue;
      }
      for (const event of batch) {
        if (stopped) return;
        await deliver(event);
      }
      if (batch.length < settings.batchSize && !stopped) await idle.for(settings.pollIntervalMs);
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
