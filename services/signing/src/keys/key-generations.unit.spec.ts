import { describe, expect, it } from 'vitest';
import { KeyGenerations } from './key-generations';

/** a task that runs until `finish` or `fail` is called */
function pending() {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { task: () => done, finish, fail };
}

const settledSoon = async <T>(promise: Promise<T>): Promise<T | 'waiting'> => Promise.race([promise, new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 20))]);

describe('key generations side by side', () => {
  it('begins as many tasks as it has slots, and the next one once a slot is free', async () => {
    const generations = new KeyGenerations(2);
    const [a, b, c] = [pending(), pending(), pending()];
    expect(await generations.start(a.task)).toBe(true);
    expect(await generations.start(b.task)).toBe(true);
    const third = generations.start(c.task);
    expect(await settledSoon(third)).toBe('waiting');
    expect(generations.size).toBe(2);
    a.finish();
    expect(await third).toBe(true);
    expect(generations.size).toBe(2);
  });

  it('frees the slot of a task that failed', async () => {
    const generations = new KeyGenerations(1);
    const failing = pending();
    await generations.start(failing.task);
    const next = generations.start(pending().task);
    failing.fail(new Error('no entropy'));
    expect(await next).toBe(true);
  });

  it('on close, waits for the running tasks and begins none of the waiting ones', async () => {
    const generations = new KeyGenerations(1);
    const running = pending();
    let waitingBegan = false;
    await generations.start(running.task);
    const waiting = generations.start(async () => void (waitingBegan = true));
    const closed = generations.close();
    expect(await waiting).toBe(false);
    expect(await settledSoon(closed)).toBe('waiting');
    running.finish();
    await closed;
    expect(waitingBegan).toBe(false);
    expect(await generations.start(async () => undefined)).toBe(false);
  });
});
