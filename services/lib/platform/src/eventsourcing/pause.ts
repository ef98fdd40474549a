/**
 * An interruptible sleep: background loops wait on it between polls or retries, and
 * `interrupt()` (a new event, or stop) wakes them at once. An interrupt that arrives while
 * the loop is busy is kept for its next wait, so a notification is never lost to a poll
 * interval. No timer outlives the wait.
 */
export class Pause {
  private wake?: () => void;
  private interrupted = false;

  for(ms: number): Promise<void> {
    if (this.interrupted) {
      this.interrupted = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  interrupt(): void {
    if (this.wake) this.wake();
    else this.interrupted = true;
  }
}

/** Exponential backoff: attempt 1 waits `initialMs`, doubling up to `maxMs`. */
export const backoffDelay = (attempt: number, initialMs: number, maxMs: number): number =>
  Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
