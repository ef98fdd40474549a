import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter } from './sliding-window.limiter';

describe('sliding window limiter', () => {
  it('allows `limit` events per window, then says when the next one is allowed', () => {
    const limiter = new SlidingWindowLimiter(3, 60_000);
    for (const t of [0, 10_000, 20_000]) expect(limiter.hit('ip', t).allowed).toBe(true);
    expect(limiter.hit('ip', 30_000)).toEqual({ allowed: false, retryAfterSeconds: 30 });
    expect(limiter.hit('other', 30_000).allowed).toBe(true);
    // the first event leaves the window at 60 s
    expect(limiter.hit('ip', 60_001).allowed).toBe(true);
    expect(limiter.hit('ip', 60_002)).toEqual({ allowed: false, retryAfterSeconds: 10 });
  });

  it('checks without counting, and a reset forgets the key', () => {
    const limiter = new SlidingWindowLimiter(2, 1_000);
    limiter.record('account', 0);
    expect(limiter.check('account', 1)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    limiter.record('account', 2);
    expect(limiter.check('account', 3)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    limiter.reset('account');
    expect(limiter.check('account', 4).allowed).toBe(true);
  });
});
