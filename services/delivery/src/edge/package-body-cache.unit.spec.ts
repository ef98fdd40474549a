import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PackageBodyCache } from './package-body-cache';

describe('PackageBodyCache', () => {
  const store = (reads: string[]) => async (key: string) => {
    reads.push(key);
    return Readable.from([Buffer.alloc(Number(key.split(':')[1]), key[0])]);
  };

  it('reads a key once, then answers from memory', async () => {
    const reads: string[] = [];
    const cache = new PackageBodyCache(store(reads), 100, 1000);
    expect(cache.get('a:10')).toBeUndefined();
    const [one, two] = await Promise.all([cache.load('a:10'), cache.load('a:10')]);
    expect(one).toBe(two);
    expect(cache.get('a:10')?.length).toBe(10);
    expect(reads).toEqual(['a:10']);
  });

  it('drops the least recently used entries past its byte budget and never keeps oversized files', async () => {
    const cache = new PackageBodyCache(store([]), 100, 200);
    await cache.load('a:100');
    await cache.load('b:100');
    cache.get('a:100');
    await cache.load('c:100');
    expect(cache.get('b:100')).toBeUndefined();
    expect(cache.get('a:100')).toBeDefined();
    expect(cache.get('c:100')).toBeDefined();
    expect((await cache.load('d:101')).length).toBe(101);
    expect(cache.get('d:101')).toBeUndefined();
  });
});
