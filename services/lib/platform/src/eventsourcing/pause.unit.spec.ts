import { expect, it } from 'vitest';
import { backoffDelay, Pause } from './pause';

it('wakes a waiting loop at once, and keeps an interrupt that came while it was busy', async () => {
  const pause = new Pause();
  let started = performance.now();
  const waiting = pause.for(5_000);
  pause.interrupt();
  await waiting;
  expect(performance.now() - started).toBeLessThan(1_000);

  pause.interrupt();
  started = performance.now();
  await pause.for(5_000);
  expect(performance.now() - started).toBeLessThan(1_000);

  started = performance.now();
  await pause.for(30);
  expect(performance.now() - started).toBeGreaterThanOrEqual(25);
});

it('doubles the backoff up to its ceiling', () => {
  expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, 100, 500))).toEqual([100, 200, 400, 500, 500]);
});
