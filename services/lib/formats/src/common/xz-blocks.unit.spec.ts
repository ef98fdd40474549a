import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { xzInBlocks } from './xz-blocks';

const part = (from: number, to: number) => Buffer.from(Array.from({ length: to - from }, (_, index) => `Package: p${from + index}\nSHA256: ${(from + index).toString(16).padStart(64, '0')}\n\n`).join(''));
const decompressed = (bytes: Buffer) => execFileSync('xz', ['--decompress', '--stdout'], { input: bytes });
/** xz(1)'s own reading of the file's blocks (it lists files only, not standard input) */
function blockLines(bytes: Buffer): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'xz-blocks-'));
  try {
    writeFileSync(join(dir, 'Packages.xz'), bytes);
    return execFileSync('xz', ['--list', '--robot', '--verbose', join(dir, 'Packages.xz')]).toString().split('\n').filter((line) => line.startsWith('block\t'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('xzInBlocks', () => {
  it('writes one stream of one block per part that xz(1) checks and decompresses to the parts joined', async () => {
    const parts = [part(0, 1), part(1, 300), part(300, 1500)];
    const bytes = await xzInBlocks(parts);
    expect(decompressed(bytes)).toEqual(Buffer.concat(parts));
    expect(() => execFileSync('xz', ['--test', '-'], { input: bytes })).not.toThrow();
    expect(blockLines(bytes)).toHaveLength(3);
  });

  it('gives the same stream for the same parts, whether their blocks were compressed before or not', async () => {
    const parts = [part(0, 1), part(1, 400)];
    const first = await xzInBlocks(parts);
    const again = await xzInBlocks(parts);
    const copies = await xzInBlocks(parts.map((bytes) => Buffer.from(bytes)));
    expect(again).toEqual(first);
    expect(copies).toEqual(first);
  });

  it('writes an empty stream for no parts', async () => {
    const bytes = await xzInBlocks([]);
    expect(decompressed(bytes)).toEqual(Buffer.alloc(0));
  });

  it('records sizes of more than one varint byte (an incompressible block above 16 KiB)', async () => {
    const random = randomBytes(40_000);
    const bytes = await xzInBlocks([part(0, 10), random]);
    expect(decompressed(bytes)).toEqual(Buffer.concat([part(0, 10), random]));
  });
});
