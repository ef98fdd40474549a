/**
 * Key generations running side by side, at most `slots` at once. An RSA-4096 generation is
 * seconds of one core's work on libuv's thread pool; made one after another, the keys of
 * fifty repositories created together took minutes, with every core but one idle.
 * `start` resolves once its task has begun (a reaction then takes the next event while the
 * key is made); `close` lets the running ones finish and starts nothing more.
 */
export class KeyGenerations {
  private readonly running = new Set<Promise<void>>();
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(private readonly slots: number) {
    if (!(slots >= 1)) throw new RangeError(`key generations need at least one slot (got ${slots})`);
  }

  /**
   * waits for a free slot, then begins `task` and resolves with whether it began (false
   * once closed); `task` reports its own failure (it is not awaited here)
   */
  async start(task: () => Promise<void>): Promise<boolean> {
    while (!this.closed && this.running.size >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.closed) return false;
    const run = task()
      .catch(() => undefined)
      .finally(() => {
        this.running.delete(run);
        this.waiting.shift()?.();
      });
    this.running.add(run);
    return true;
  }

  /** how many run now */
  get size(): number {
    return this.running.size;
  }

  /** starts nothing more (callers waiting for a slot get false) and resolves once the running ones ended */
  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake();
    await Promise.all(this.running);
  }
}
