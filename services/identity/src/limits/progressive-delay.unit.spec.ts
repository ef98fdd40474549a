import { describe, expect, it } from 'vitest';
import { ProgressiveDelay } from './progressive-delay';

describe('ProgressiveDelay', () => {
  it('lets the first failures pass, then doubles the wait after each one up to the cap', () => {
    const delay = new ProgressiveDelay(3, 8_000, 900_000);
    let now = 0;
    const waits: number[] = [];
    for (let failure = 0; failure < 8; failure++) {
      const decision = delay.check('a|ip', now);
      waits.push(decision.retryAfterSeconds);
      now += decision.retryAfterSeconds * 1000;
      expect(delay.check('a|ip', now).allowed).toBe(true);
      delay.recordFailure('a|ip', now);
    }
    expect(waits).toEqual([0, 0, 0, 1, 2, 4, 8, 8]);
  });

  it('keeps keys apart, forgets a key on success and some time after its last failure', () => {
    const delay = new ProgressiveDelay(1, 60_000, 10_000);
    delay.recordFailure('a|attacker', 0);
    delay.recordFailure('a|attacker', 0);
    expect(delay.check('a|attacker', 500)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(delay.check('a|owner', 500).allowed).toBe(true);
    expect(delay.check('a|attacker', 10_001).allowed).toBe(true);
    // forgotten: one failure owes the first wait again, not the doubled one
    delay.recordFailure('a|attacker', 10_001);
    expect(delay.check('a|attacker', 10_002)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    delay.reset('a|attacker');
    expect(delay.check('a|attacker', 10_002).allowed).toBe(true);
  });
});
