import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ArtifactFormatErrorCode } from '../common/artifact-format.error';
import { decompressBounded } from './control-archive.decompression';

const run = promisify(execFile);
const LIMIT = 4 * 1024 * 1024;

/** 128 MiB of zeros through the real compressor CLI: a few KiB that would inflate 32x past the limit. */
async function bomb(command: 'xz' | 'zstd'): Promise<Buffer> {
  const { stdout } = await run('sh', ['-c', `head -c 134217728 /dev/zero | ${command} -c -1`], { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

describe('decompressBounded with real xz and zstd output', () => {
  it.each([
    ['xz', 'xz'],
    ['zstd', 'zstd'],
  ] as const)('refuses a %s bomb early, without inflating it whole', async (command, compression) => {
    const compressed = await bomb(command);
    const rssBefore = process.memoryUsage().rss;
    await expect(decompressBounded(compressed, compression, LIMIT, 'control.tar')).rejects.toMatchObject({
      code: ArtifactFormatErrorCode.decompressionLimit,
      message: 'control.tar decompresses to more than 4194304 bytes',
    });
    // Inflating the whole bomb would hold 128 MiB; stopping at the limit holds about 4 MiB.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it.each([
    ['xz', 'xz'],
    ['zstd', 'zstd'],
    ['gzip', 'gzip'],
  ] as const)('round-trips ordinary %s data under the limit', async (command, compression) => {
    const { stdout } = await run('sh', ['-c', `printf 'control file\\n%.0s' $(seq 1000) | ${command} -c`], { encoding: 'buffer' });
    expect((await decompressBounded(stdout, compression, LIMIT, 'control.tar')).toString()).toBe('control file\n'.repeat(1000));
  });
});
