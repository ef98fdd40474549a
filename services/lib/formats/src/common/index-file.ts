import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import lzma from 'lzma-native';

/** One published metadata file: YUM lists SHA-256 only. */
export interface IndexFile {
  /** Path relative to the index root (`dists/<codename>/` or the yum base URL). */
  readonly path: string;
  readonly bytes: Buffer;
  readonly size: number;
  readonly sha256: string;
}

/** An APT index file: the Release lists MD5Sum and SHA512 beside SHA256. */
export interface AptIndexFile extends IndexFile {
  readonly md5: string;
  readonly sha512: string;
}

const hex = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

export const indexFile = (path: string, bytes: Buffer): IndexFile => ({ path, bytes, size: bytes.length, sha256: hex('sha256', bytes) });

export const aptIndexFile = (path: string, bytes: Buffer): AptIndexFile => ({
  ...indexFile(path, bytes),
  md5: hex('md5', bytes),
  sha512: hex('sha512', bytes),
});

const gzipAsync = promisify(gzipCallback);

let lastTurn: Promise<void> = Promise.resolve();

/**
 * Resolves in a turn of the event loop of its own, later than any earlier caller's, with the
 * I/O that arrived meanwhile taken in between: each index file is hashed (seconds at 100,000
 * packages after a start) in its own turn, not all of a distribution's in the turn that built
 * them, so a request the same process answers is not held up behind all of them (an upload's
 * ClaimUpload, answered beside such a build, timed out after 10 s so).
 */
export function turnOfItsOwn(): Promise<void> {
  lastTurn = lastTurn.then(() => new Promise((resolve) => setImmediate(resolve)));
  return lastTurn;
}

/** files smaller than this are hashed in the turn that built them: a build after one upload waits for no turn per index file */
const HASHED_IN_TURN_OF_ITS_OWN_BYTES = 4 * 1024 * 1024;

/** turnOfItsOwn before hashing a file of `bytes` bytes, if it is large enough to hold the event loop */
export const turnBeforeHashing = async (bytes: number): Promise<void> => {
  if (bytes >= HASHED_IN_TURN_OF_ITS_OWN_BYTES) await turnOfItsOwn();
};

// Level 6 (zlib's default): metadata is written once per publication and downloaded many
// times, and on these indices level 9 saves under 1% for 30% more time. The async API runs
// on libuv's thread pool, so several files compress in parallel with the hashing.
export const GZIP_LEVEL = 6;

export const gzip = (bytes: Buffer): Promise<Buffer> => gzipAsync(bytes, { level: GZIP_LEVEL });

// Preset 0: Packages files are dominated by incompressible hex checksums, so higher
// presets gain about 1% in size for 3-10x the time (measured: 6 MB index, preset 0 0.5 s,
// preset 1 1.5 s, preset 3 5 s).
export const XZ_PRESET = 0;

/**
 * `.xz` as xz(1) writes it (LZMA2 at `XZ_PRESET`, CRC64), encoded by liblzma on its own
 * thread. The filter chain is spelled out because lzma-native's easy encoder takes a
 * preset of 0 for "none given" and uses 6.
 */
export async function xz(bytes: Buffer): Promise<Buffer> {
  const encoder = lzma.createStream('streamEncoder', { filters: [{ id: lzma.FILTER_LZMA2, options: { preset: XZ_PRESET } }], check: lzma.CHECK_CRC64 });
  const parts: Buffer[] = [];
  encoder.on('data', (part: Buffer) => parts.push(part));
  const finished = new Promise<void>((resolve, reject) => {
    encoder.once('end', resolve);
    encoder.once('error', reject);
  });
  encoder.end(bytes);
  await finished;
  return Buffer.concat(parts);
}
