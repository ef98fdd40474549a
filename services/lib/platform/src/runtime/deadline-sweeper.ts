import type { Logger } from 'pino';

export interface DeadlineSweeperOptions<T> {
  /** what is waiting, each with its deadline (ISO time); read from a projection every sweep */
  pending(): Promise<T[]>;
  deadlineOf(item: T): string;
  /** the work due at the deadline; it must be idempotent (a sweep may repeat it after a crash) */
  act(item: T): Promise<void>;
  intervalMs: number;
  logger: Logger;
  /** what the log calls the work when it fails */
  what: string;
}

/**
 * Acts on whatever has reached its deadline, checking every `intervalMs`. The deadlines
 * come from a read model projected from the events, not from timers set when the work
 * was scheduled, so a process killed with -9 finds every pending deadline again at its
 * next start and acts on the overdue ones in its first sweep.
 */
export class DeadlineSweeper<T> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly options: DeadlineSweeperOptions<T>) {}

  start(): void {
    const tick = () => {
      this.running = this.sweep(new Date()).finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.options.intervalMs);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** one pass: acts on every item whose deadline is at or before `now`; a failure is logged and retried on the next pass */
  async sweep(now: Date): Promise<void> {
    const { pending, deadlineOf, act, logger, what } = this.options;
    try {
      for (const item of await pending()) {
        const deadline = deadlineOf(item);
        if (!deadline || Date.parse(deadline) > now.getTime()) continue;
        if (this.stopped) return;
        await act(item).catch((error) => logger.error({ err: error, item }, `${what} failed; trying again on the next check`));
      }
    } catch (error) {
      logger.error({ err: error }, `${what}: reading what is due failed; trying again on the next check`);
    }
  }
}
