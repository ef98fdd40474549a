import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidKey, contentAddressedKey, resolveRange } from './blob-key';
import { BlobNotFoundError, type BlobInfo, type BlobStore, type ByteRange, type PutOptions } from './blob-store.port';
import { HashingLimiter } from './hashing-limiter';
import { ChunkPool, KeptFileStream, OpenFiles } from './open-files';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

async function fsync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Blobs as files under one directory, keys as relative paths. Uploads stream into
 * `.tmp/`, are fsynced, then renamed into place, so a reader (or a crash) never sees a
 * half-written file. The SHA-256 of a content-addressed blob is its name; that of any
 * other blob sits beside it under `.meta/`. Each filesystem call is a round trip through
 * libuv's threads and the event loop: while a publication signs and writes its small
 * files, a put of a few KB took 5–30 ms here (1.2 ms alone), and with half the calls
 * (no `.meta/` file for a content-addressed blob, the fsync on the open descriptor, `.tmp/`
 * made once) about 5 ms.
 */
const READ_CHUNK_BYTES = 1024 * 1024;
/** spare read buffers kept for reuse (RecyclingStream), 8 MiB */
const SPARE_CHUNKS = 8;
/** `<prefix>/sha256/ab/cd/<sha256>`: bytes that never change under their key */
const CONTENT_ADDRESSED = /\/sha256\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}$/;

export interface FsBlobStoreOptions {
  /** descriptors of content-addressed blobs kept open (least recently read closed first) */
  maxOpenFiles?: number;
  /** how old a kept descriptor may be before a read checks its file is still there (another process may have removed it) */
  revalidateMs?: number;
}

export class FsBlobStore implements BlobStore {
  private readonly openFiles: OpenFiles;
  private readonly chunks = new ChunkPool(READ_CHUNK_BYTES, SPARE_CHUNKS);
  /** `.tmp/` made once (and again after a failure) */
  private temporaries?: Promise<unknown>;

  constructor(
    private readonly root: string,
    { maxOpenFiles = 512, revalidateMs = 1000 }: FsBlobStoreOptions = {},
  ) {
    this.openFiles = new OpenFiles(maxOpenFiles, revalidateMs);
  }

  private pathOf(key: string) {
    assertValidKey(key);
    return join(this.root, key);
  }

  private metaPathOf(key: string) {
    return join(this.root, '.meta', `${key}.json`);
  }

  /** a new temporary file's path, in `.tmp/` */
  private async temporaryPath(): Promise<string> {
    const temporary = join(this.root, '.tmp', randomUUID());
    this.temporaries ??= mkdir(dirname(temporary), { recursive: true }).catch((error: unknown) => {
      this.temporaries = undefined;
      throw error;
    });
    await this.temporaries;
    return temporary;
  }

  /** streams the body into a temporary file; nothing is left behind when it fails */
  private async receive(body: Readable, options: PutOptions): Promise<{ temporary: string; size: number; sha256: string }> {
    const temporary = await this.temporaryPath();
    const limiter = new HashingLimiter(options.maxBytes);
    // flushed (fsynced) before it closes, unless asked not to: an fsync of 100 MiB takes
    // 0.05–0.3 s here, as long as the rest of an upload
    const file = createWriteStream(temporary, { flags: 'wx', flush: options.durable !== false });
    try {
      await pipeline(body, limiter, file);
    } catch (error) {
      // a body that fails at once can fail before the file is open: removed before the
      // stream closes, the pending open (on another libuv thread) would create it again
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      await rm(temporary, { force: true });
      throw error;
    }
    return { temporary, size: limiter.size, sha256: limiter.sha256 };
  }

  /** `sha256` undefined: a blob whose hash is not known, so no stale one stays beside it */
  private async moveIntoPlace(temporary: string, key: string, sha256: string | undefined, { durable = true }: PutOptions): Promise<void> {
    const target = this.pathOf(key);
    if (!CONTENT_ADDRESSED.test(key)) {
      const meta = this.metaPathOf(key);
      if (sha256 === undefined) await rm(meta, { force: true });
      else {
        await mkdir(dirname(meta), { recursive: true });
        await writeFile(meta, JSON.stringify({ sha256 }));
      }
    }
    // made first: content addresses spread over 65,536 directories, so a new blob's is seldom there yet
    await mkdir(dirname(target), { recursive: true });
    await rename(temporary, target);
    this.openFiles.forget(target);
    if (durable) await fsync(dirname(target));
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<BlobInfo> {
    assertValidKey(key);
    const { temporary, size, sha256 } = await this.receive(body, options);
    await this.moveIntoPlace(temporary, key, sha256, options);
    return { key, size, sha256 };
  }

  async putContentAddressed(prefix: string, body: Readable, options: PutOptions = {}): Promise<BlobInfo> {
    const { temporary, size, sha256 } = await this.receive(body, options);
    const key = contentAddressedKey(prefix, sha256);
    if (await this.head(key)) await rm(temporary, { force: true });
    else await this.moveIntoPlace(temporary, key, sha256, options);
    return { key, size, sha256 };
  }

  async putBytesContentAddressed(prefix: string, bytes: Buffer, options: Pick<PutOptions, 'contentType' | 'durable'> = {}): Promise<BlobInfo> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const info = { key: contentAddressedKey(prefix, sha256), size: bytes.length, sha256 };
    if (await this.head(info.key)) return info;
    // one write and its fsync: a put of a few KB through a stream cost 1.5-2 ms of CPU here, this 0.6-0.8
    const temporary = await this.temporaryPath();
    try {
      await writeFile(temporary, bytes, { flag: 'wx', flush: options.durable !== false });
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await this.moveIntoPlace(temporary, info.key, sha256, options);
    return info;
  }

  async move(source: string, target: string): Promise<void> {
    const from = this.pathOf(source);
    // a blob stored without waiting for the disk (staging) becomes durable here
    await fsync(from).catch((error) => {
      throw isMissing(error) ? new BlobNotFoundError(source) : error;
    });
    await this.moveIntoPlace(from, target, (await this.head(source))?.sha256, {});
    this.openFiles.forget(from);
    await rm(this.metaPathOf(source), { force: true });
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    if (CONTENT_ADDRESSED.test(key)) return this.getKept(key, range);
    // opening first pins the file: a concurrent delete or replace cannot cut the read short
    const handle = await open(this.pathOf(key), 'r').catch((error) => {
      throw isMissing(error) ? new BlobNotFoundError(key) : error;
    });
    try {
      const stats = await handle.stat();
      // a key that is only a prefix of others is a directory here, not a blob
      if (!stats.isFile()) throw new BlobNotFoundError(key);
      const { size } = stats;
      const bounds = range ? resolveRange(range, size) : undefined;
      // 1 MiB reads: a 50 MB package costs 50 reads and writes instead of 800
      return handle.createReadStream({ ...bounds, highWaterMark: READ_CHUNK_BYTES });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async getBytes(key: string): Promise<Buffer> {
    try {
      return readFileSync(this.pathOf(key));
    } catch (error) {
      throw isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR' ? new BlobNotFoundError(key) : error;
    }
  }

  /** reads from a kept descriptor: no open, fstat or close per read; positional reads, so any number of readers share it */
  private async getKept(key: string, range?: ByteRange): Promise<Readable> {
    const file = await this.openFiles.acquire(this.pathOf(key)).catch((error: NodeJS.ErrnoException) => {
      throw isMissing(error) || error.code === 'EISDIR' ? new BlobNotFoundError(key) : error;
    });
    let bounds: ByteRange;
    try {
      bounds = range ? resolveRange(range, file.size) : { start: 0, end: file.size - 1 };
    } catch (error) {
      this.openFiles.release(file);
      throw error;
    }
    if (bounds.end < bounds.start) {
      this.openFiles.release(file);
      return Readable.from([]);
    }
    // the numeric descriptor: a FileHandle's own streams each leave a listener on it, which a
    // descriptor kept for millions of reads cannot afford
    const stream = new KeptFileStream(file.handle.fd, bounds.start, bounds.end, this.chunks, () => this.openFiles.release(file));
    return stream;
  }

  async head(key: string): Promise<{ size: number; sha256?: string } | undefined> {
    try {
      const stats = await stat(this.pathOf(key));
      if (!stats.isFile()) return undefined;
      const { size } = stats;
      if (CONTENT_ADDRESSED.test(key)) return { size, sha256: key.slice(-64) };
      const meta = await readFile(this.metaPathOf(key), 'utf8').catch(() => undefined);
      return { size, ...(meta ? { sha256: (JSON.parse(meta) as { sha256: string }).sha256 } : {}) };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    this.openFiles.forget(this.pathOf(key));
    await unlink(this.pathOf(key)).catch((error: NodeJS.ErrnoException) => {
      // missing, or a directory: no blob under this key either way
      if (error.code !== 'ENOENT' && error.code !== 'EISDIR') throw error;
    });
    await rm(this.metaPathOf(key), { force: true });
  }

  async *list(prefix: string, { modifiedBefore }: { modifiedBefore?: Date } = {}): AsyncIterable<string> {
    if (prefix) assertValidKey(`${prefix}x`);
    const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    for await (const key of this.walk(base, prefix)) {
      if (modifiedBefore && !(await this.writtenBefore(join(this.root, key), modifiedBefore))) continue;
      yield key;
    }
  }

  /** false for a file that is gone (or was replaced) since it was listed */
  private async writtenBefore(path: string, cutoff: Date): Promise<boolean> {
    const stats = await stat(path).catch(() => undefined);
    return stats !== undefined && stats.mtime < cutoff;
  }

  async removeAbandonedTemporaries(before: Date): Promise<number> {
    const directory = join(this.root, '.tmp');
    const names = await readdir(directory).catch((error) => {
      if (isMissing(error)) return [];
      throw error;
    });
    let removed = 0;
    for (const name of names) {
      const path = join(directory, name);
      if (!(await this.writtenBefore(path, before))) continue;
      await rm(path, { force: true });
      removed++;
    }
    return removed;
  }

  private async *walk(directory: string, prefix: string): AsyncIterable<string> {
    const entries = await readdir(join(this.root, directory), { withFileTypes: true }).catch((error) => {
      if (isMissing(error)) return [];
      throw error;
    });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue;
      const key = directory ? `${directory}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) yield* this.walk(key, prefix);
      } else if (key.startsWith(prefix)) yield key;
    }
  }

  async close(): Promise<void> {
    this.openFiles.close();
  }
}
