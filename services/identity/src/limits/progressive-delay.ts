import type { LimitDecision } from './sliding-window.limiter';

const SWEEP_ABOVE_KEYS = 10_000;

interface Failures {
  count: number;
  last: number;
}

/**
 * A brake on guessing, per key (account + client address): the first `freeFailures` cost
 * nothing (typos), then each further attempt must wait twice as long as the one before, up
 * to `maxDelayMs`. Nothing is locked: after the wait one more attempt is allowed, and a key
 * is forgotten `forgetAfterMs` after its last failure or at once on a success. Kept in the
 * identity process's memory: a restart forgets it, which costs an attacker nothing he could
 * not get from a second address anyway.
 */
export class ProgressiveDelay {
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly freeFailures: number,
    private readonly maxDelayMs: number,
    private readonly forgetAfterMs: number,
  ) {}

  private current(key: string, now: number): Failures | undefined {
    const entry = this.failures.get(key);
    if (entry && now - entry.last > this.forgetAfterMs) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }

  /** the wait owed after `count` failures */
  private delayAfter(count: number): number {
    if (count < this.freeFailures) return 0;
    return Math.min(this.maxDelayMs, 1000 * 2 ** (count - this.freeFailures));
  }

  check(key: string, now = Date.now()): LimitDecision {
    const entry = this.current(key, now);
    if (!entry) return { allowed: true, retryAfterSeconds: 0 };
    const allowedAt = entry.last + this.delayAfter(entry.count);
    if (now >= allowedAt) return { allowed: true, retryAfterSeconds: 0 };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((allowedAt - now) / 1000)) };
  }

  recordFailure(key: string, now = Date.now()) {
    if (this.failures.size > SWEEP_ABOVE_KEYS) for (const known of [...this.failures.keys()]) this.current(known, now);
    this.failures.set(key, { count: (this.current(key, now)?.count ?? 0) + 1, last: now });
  }

  reset(key: string) {
    this.failures.delete(key);
  }
}
