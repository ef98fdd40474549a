/**
 * An interruptible sleep: background loops wait on it between polls or retries, and
 * `interrupt()` (a new event, or stop) wakes them at once. No timer outlives the wait.
 */
export class Pause {
  private wake?: () => void;

  for(ms: number): Promise<void> {
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
    this.wake?.();
  }
}

/** Exponential backoff: attempt 1 waits `initialMs`, doubling up to `maxMs`. */
export const backoffDelay = (attempt: number, initialMs: number, maxMs: number): number =>
  Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
