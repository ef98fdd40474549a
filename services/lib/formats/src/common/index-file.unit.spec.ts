import { describe, expect, it } from 'vitest';
import { turnOfItsOwn } from './index-file';

describe('turnOfItsOwn', () => {
  it('gives each caller a turn of the event loop of its own, in order, with what was scheduled meanwhile run between them', async () => {
    const seen: string[] = [];
    // what the first caller's work lets in (an I/O callback, here an immediate) runs before the second caller's work
    const first = turnOfItsOwn().then(() => {
      seen.push('first');
      setImmediate(() => seen.push('between'));
    });
    const second = turnOfItsOwn().then(() => seen.push('second'));
    await Promise.all([first, second]);
    expect(seen).toEqual(['first', 'between', 'second']);
  });
});
