import { describe, expect, it } from 'vitest';
import { RecentlyUsed } from './recently-used';

describe('RecentlyUsed', () => {
  it('keeps at most its capacity, dropping the least recently read or written', () => {
    const map = new RecentlyUsed<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([map.has('a'), map.has('b'), map.has('c'), map.size]).toEqual([true, false, true, 2]);
    map.set('a', 10).set('d', 4);
    expect([map.get('a'), map.has('c'), map.get('d'), map.size]).toEqual([10, false, 4, 2]);
  });

  it('keeps the order when the most recently used entry is read again, and after it is deleted', () => {
    const map = new RecentlyUsed<string, number>(2);
    map.set('a', 1).set('b', 2);
    map.get('a');
    map.get('a');
    map.set('c', 3);
    expect([map.has('a'), map.has('b'), map.has('c')]).toEqual([true, false, true]);
    map.delete('c');
    map.get('a');
    map.set('d', 4).set('e', 5);
    expect([map.has('a'), map.has('d'), map.has('e')]).toEqual([false, true, true]);
  });

  it('refuses a capacity below one', () => {
    expect(() => new RecentlyUsed(0)).toThrow('capacity must be at least 1');
  });
});
