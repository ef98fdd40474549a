/**
 * Counts events per key in a sliding window (a log of timestamps per key). Kept in the
 * memory of the identity process: limits hold per replica, which is what a brute-force
 * brake needs, and a restart forgets at most one window.
 */
export interface LimitDecision {
  allowed: boolean;
  /** whole seconds until the next event would be allowed; 0 when allowed */
  retryAfterSeconds: number;
}

const SWEEP_ABOVE_KEYS = 10_000;

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  private recent(key: string, now: number): number[] {
    const since = now - this.windowMs;
    const times = (this.hits.get(key) ?? []).filter((time) => time > since);
    if (times.length) this.hits.set(key, times);
    else this.hits.delete(key);
    return times;
  }

  /** whether another event may happen now, without counting one */
  check(key: string, now = Date.now()): LimitDecision {
    const times = this.recent(key, now);
    if (times.length < this.limit) return { allowed: true, retryAfterSeconds: 0 };
    // allowed again once the oldest event that keeps the count at the limit leaves the window
    const oldest = times[times.length - this.limit];
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) };
  }

  /** counts an event */
  record(key: string, now = Date.now()) {
    if (this.hits.size > SWEEP_ABOVE_KEYS) this.sweep(now);
    this.hits.set(key, [...this.recent(key, now), now]);
  }

  /** counts an event if the limit allows it */
  hit(key: string, now = Date.now()): LimitDecision {
    const decision = this.check(key, now);
    if (decision.allowed) this.record(key, now);
    return decision;
  }

  reset(key: string) {
    this.hits.delete(key);
  }

  private sweep(now: number) {
    for (const key of [...this.hits.keys()]) this.recent(key, now);
  }
}
