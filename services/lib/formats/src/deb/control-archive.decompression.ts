import { gunzipSync } from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import lzma from 'lzma-native';
import { ArtifactFormatError, ArtifactFormatErrorCode as Code } from '../common/artifact-format.error';

export type Compression = 'none' | 'gzip' | 'xz' | 'zstd';

/**
 * Decompresses an in-memory member, refusing as soon as the output passes `limit` bytes:
 * a 1 KiB member that inflates to gigabytes (a "bomb") costs at most `limit` bytes of work.
 */
export async function decompressBounded(
  compressed: Uint8Array,
  compression: Compression,
  limit: number,
  what: string,
): Promise<Buffer> {
  const tooLarge = () =>
    new ArtifactFormatError(Code.decompressionLimit, `${what} decompresses to more than ${limit} bytes`);
  switch (compression) {
    case 'none':
      if (compressed.length > limit) throw tooLarge();
      return Buffer.from(compressed);
    case 'gzip':
      return gunzipBounded(compressed, limit, tooLarge, what);
    case 'zstd':
      return unzstdBounded(compressed, limit, tooLarge, what);
    case 'xz':
      return unxzBounded(compressed, limit, tooLarge, what);
  }
}

function gunzipBounded(compressed: Uint8Array, limit: number, tooLarge: () => Error, what: string): Buffer {
  try {
    // zlib stops inflating once maxOutputLength is reached instead of finishing the stream.
    return gunzipSync(compressed, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw corrupt(what, error);
  }
}

// Small input slices bound how much one push can inflate before the counter is checked.
const ZSTD_INPUT_SLICE = 512;

function unzstdBounded(compressed: Uint8Array, limit: number, tooLarge: () => Error, what: string): Buffer {
  const parts: Uint8Array[] = [];
  let total = 0;
  let exceeded = false;
  const decoder = new ZstdDecompress((data) => {
    total += data.length;
    if (total > limit) exceeded = true;
    else parts.push(data.slice());
  });
  try {
    for (let offset = 0; offset < compressed.length && !exceeded; offset += ZSTD_INPUT_SLICE) {
      const end = Math.min(offset + ZSTD_INPUT_SLICE, compressed.length);
      decoder.push(compressed.subarray(offset, end), end === compressed.length);
    }
  } catch (error) {
    throw corrupt(what, error);
  }
  if (exceeded) throw tooLarge();
  return Buffer.concat(parts);
}

// liblzma's ratio can pass 1000:1, so one slice inflates to a few MB at most before the
// counter is checked.
const XZ_INPUT_SLICE = 512;

async function unxzBounded(compressed: Uint8Array, limit: number, tooLarge: () => Error, what: string): Promise<Buffer> {
  // Fed slice by slice on this thread, and abandoned as soon as the output passes `limit`:
  // a bomb is never inflated whole.
  const decoder = lzma.createStream('streamDecoder', { synchronous: true });
  const parts: Buffer[] = [];
  let total = 0;
  decoder.on('data', (part: Buffer) => {
    total += part.length;
    if (total <= limit) parts.push(part);
  });
  const failed = new Promise<never>((_resolve, reject) => decoder.once('error', reject));
  const settled = <T>(step: Promise<T>) => Promise.race([step, failed]);
  try {
    for (let offset = 0; offset < compressed.length && total <= limit; offset += XZ_INPUT_SLICE) {
      const slice = Buffer.from(compressed.buffer, compressed.byteOffset + offset, Math.min(XZ_INPUT_SLICE, compressed.length - offset));
      await settled(new Promise<void>((resolve, reject) => decoder.write(slice, (error) => (error ? reject(error) : resolve()))));
    }
    if (total <= limit) await settled(new Promise<void>((resolve) => decoder.end(resolve)));
  } catch (error) {
    throw corrupt(what, error);
  } finally {
    decoder.destroy();
  }
  if (total > limit) throw tooLarge();
  return Buffer.concat(parts);
}

const corrupt = (what: string, cause: unknown) =>
  new ArtifactFormatError(Code.invalidDeb, `${what} is not valid compressed data (${(cause as Error).message})`);
