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

  describe('a file larger than a cached file, by blocks', () => {
    // 250 bytes, each its own index: blocks of 100 are bytes 0–99, 100–199 and 200–249
    const file = Buffer.from(Array.from({ length: 250 }, (_, index) => index));
    const ranges: string[] = [];
    const blockStore = async (key: string, range?: { start: number; end: number }) => {
      if (!range) return store([])(key);
      ranges.push(`${range.start}-${range.end}`);
      return Readable.from([file.subarray(range.start, range.end + 1)]);
    };
    const loaded = () => new Promise((resolve) => setImmediate(resolve));

    it('reads a block into memory the second time it is asked for, not the first, and answers a range across blocks from memory', async () => {
      ranges.length = 0;
      const cache = new PackageBodyCache(blockStore, 100, 1000);
      expect(cache.blocks('big', 250, 150, 219)).toBeUndefined();
      await loaded();
      expect(ranges).toEqual([]);
      expect(cache.blocks('big', 250, 150, 219)).toBeUndefined();
      await loaded();
      expect(ranges).toEqual(['100-199', '200-249']);
      const parts = cache.blocks('big', 250, 150, 219)!;
      expect(Buffer.concat(parts)).toEqual(file.subarray(150, 220));
      expect(parts.map((part) => part.length)).toEqual([50, 20]);
      // the whole file needs block 0 too: seen once now, read the next time
      expect(cache.blocks('big', 250, 0, 249)).toBeUndefined();
      expect(cache.blocks('big', 250, 0, 249)).toBeUndefined();
      await loaded();
      expect(Buffer.concat(cache.blocks('big', 250, 0, 249)!)).toEqual(file);
      expect(ranges).toEqual(['100-199', '200-249', '0-99']);
    });

    it('keeps blocks within the same byte budget as whole files, least recently used out first', async () => {
      ranges.length = 0;
      const cache = new PackageBodyCache(blockStore, 100, 1000);
      for (let asked = 0; asked < 2; asked++) cache.blocks('big', 250, 0, 249);
      await loaded();
      await cache.load('a:100');
      // 250 bytes of blocks and 100 of a file in a budget of 1000: all kept; 800 more push the oldest out
      for (const key of ['b:100', 'c:100', 'd:100', 'e:100', 'f:100', 'g:100', 'h:100', 'i:100']) await cache.load(key);
      expect(cache.blocks('big', 250, 0, 99)).toBeUndefined();
      expect(cache.blocks('big', 250, 100, 249)).toBeUndefined();
      expect(cache.get('a:100')).toBeDefined();
    });

    it('does not keep a block the store gave short, and answers that range from the store again', async () => {
      const shortStore = async (_key: string, range?: { start: number; end: number }) => Readable.from([file.subarray(range!.start, range!.end)]);
      const cache = new PackageBodyCache(shortStore, 100, 1000);
      for (let asked = 0; asked < 2; asked++) cache.blocks('big', 250, 0, 99);
      await loaded();
      expect(cache.blocks('big', 250, 0, 99)).toBeUndefined();
    });

    it('never keeps blocks of a file larger than a quarter of its budget', async () => {
      ranges.length = 0;
      const cache = new PackageBodyCache(blockStore, 100, 999);
      for (let asked = 0; asked < 3; asked++) expect(cache.blocks('big', 250, 0, 249)).toBeUndefined();
      await loaded();
      expect(ranges).toEqual([]);
    });
  });
});
