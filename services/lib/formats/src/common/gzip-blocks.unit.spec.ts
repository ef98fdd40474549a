import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { blockEndsAfter, GzipBlockCache, gzipInBlocks, type IndexPiece } from './gzip-blocks';

const pieces = (from: number, to: number): IndexPiece[] =>
  Array.from({ length: to - from }, (_, index) => ({ key: `package-${from + index}`, text: `Package: p${from + index}\nVersion: 1.0\n\n` }));
const joined = async (label: string, input: readonly IndexPiece[], cache?: GzipBlockCache) => {
  const blocks = await gzipInBlocks(label, input, cache).blocks;
  return { blocks, plain: Buffer.concat(blocks.map((block) => block.plain)), gzipped: Buffer.concat(blocks.map((block) => block.gzipped)) };
};

describe('gzipInBlocks', () => {
  it('writes a large index as several gzip members that decompress to the whole text', async () => {
    const input = pieces(0, 3000);
    const { blocks, plain, gzipped } = await joined('main/binary-amd64', input);
    expect(blocks.length).toBeGreaterThan(3);
    expect(plain.toString()).toBe(input.map((piece) => piece.text).join(''));
    expect(gunzipSync(gzipped)).toEqual(plain);
  });

  it('hands over the plain bytes before the members are compressed, the same bytes the blocks hold', async () => {
    const input = pieces(0, 3000);
    const { plain, blocks } = gzipInBlocks('main/binary-amd64', input);
    expect(Buffer.concat(plain).toString()).toBe(input.map((piece) => piece.text).join(''));
    expect((await blocks).map((block) => block.plain)).toEqual(plain);
  });

  it('makes two packages two members, and nothing of no packages', async () => {
    expect((await gzipInBlocks('x', pieces(0, 2)).blocks).length).toBe(2);
    expect(await gzipInBlocks('x', []).blocks).toEqual([]);
  });

  it('gives the same bytes with or without the cache, after additions and removals', async () => {
    const cache = new GzipBlockCache();
    await joined('x', pieces(0, 3000), cache);
    cache.sweep();
    const changed = [...pieces(0, 1200), ...pieces(1201, 3000), ...pieces(5000, 5003)];
    const cached = await joined('x', changed, cache);
    const fresh = await joined('x', changed);
    expect(cached.gzipped).toEqual(fresh.gzipped);
    expect(cached.plain).toEqual(fresh.plain);
  });

  it('recompresses only the block a new package joins', async () => {
    const cache = new GzipBlockCache();
    const before = await gzipInBlocks('x', pieces(0, 3000), cache).blocks;
    cache.sweep();
    const after = await gzipInBlocks('x', pieces(0, 3001), cache).blocks;
    expect(after.length).toBe(before.length);
    expect(after.slice(0, -1).every((block, index) => block === before[index])).toBe(true);
    expect(after.at(-1)).not.toBe(before.at(-1));
  });

  it('ends blocks where the key decides, whether the pieces carry that decision or not', async () => {
    const input = pieces(0, 3000);
    const carried = input.map((piece) => ({ ...piece, endsBlock: blockEndsAfter(piece.key) }));
    expect((await joined('x', carried)).gzipped).toEqual((await joined('x', input)).gzipped);
    // the carried decision is the one taken: no block ends where it says none does
    expect((await joined('x', input.map((piece) => ({ ...piece, endsBlock: false })))).blocks.length).toBeLessThan((await joined('x', input)).blocks.length);
  });

  it('keeps the blocks of differently labelled files apart', async () => {
    const cache = new GzipBlockCache();
    const input = pieces(0, 10);
    const [a, b] = await Promise.all([gzipInBlocks('primary', input, cache).blocks, gzipInBlocks('other', input, cache).blocks]);
    expect(a[0]).not.toBe(b[0]);
  });
});
