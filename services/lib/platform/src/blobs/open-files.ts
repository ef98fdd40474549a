import { read } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { RecyclingStream } from './blob-store.port';

export interface OpenFile {
  handle: FileHandle;
  size: number;
  /** the inode opened: a file replaced or removed under the same path has another one, or none */
  ino: number;
  /** streams reading it now; the handle is closed only when none is left */
  readers: number;
  checkedAt: number;
  forgotten: boolean;
}

/**
 * Open descriptors of immutable files (content-addressed blobs), least recently used
 * closed first, like nginx's open_file_cache: a request for a cached file costs its read
 * only, not an open, an fstat and a close, each a trip through libuv's thread pool.
 * Removing or replacing a file in this process forgets it at once; a removal by another
 * process (an edge worker's store, say, while the main process purges) is noticed by a
 * `stat` once the entry is `revalidateMs` old, after which it is opened afresh or refused.
 */
export class OpenFiles {
  private readonly files = new Map<string, OpenFile>();
  private readonly opening = new Map<string, Promise<OpenFile>>();

  constructor(
    private readonly maxOpen: number,
    private readonly revalidateMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** the open file at `path`, counted as read until `release`; rejects like `open` (ENOENT for a missing file, EISDIR for a folder) */
  async acquire(path: string): Promise<OpenFile> {
    let file = this.files.get(path);
    if (file && this.now() - file.checkedAt >= this.revalidateMs) {
      const stats = await stat(path).catch(() => undefined);
      if (this.files.get(path) === file) {
        if (stats?.ino === file.ino) file.checkedAt = this.now();
        else this.forget(path);
      }
      file = this.files.get(path);
    }
    if (!file) file = await this.opened(path);
    // most recently used last
    this.files.delete(path);
    this.files.set(path, file);
    file.readers++;
    return file;
  }

  release(file: OpenFile): void {
    file.readers--;
    if (file.forgotten && file.readers === 0) void file.handle.close().catch(() => undefined);
  }

  /** the file at `path` was removed or replaced: readers already reading finish, new ones open it again */
  forget(path: string): void {
    const file = this.files.get(path);
    if (!file) return;
    this.files.delete(path);
    file.forgotten = true;
    if (file.readers === 0) void file.handle.close().catch(() => undefined);
  }

  /** how many descriptors are open (for tests and metrics) */
  get size(): number {
    return this.files.size;
  }

  close(): void {
    for (const path of [...this.files.keys()]) this.forget(path);
  }

  /** one open per path however many ask at once */
  private opened(path: string): Promise<OpenFile> {
    let pending = this.opening.get(path);
    if (!pending) {
      pending = this.openFile(path).finally(() => this.opening.delete(path));
      this.opening.set(path, pending);
    }
    return pending;
  }

  private async openFile(path: string): Promise<OpenFile> {
    const handle = await open(path, 'r');
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw Object.assign(new Error(`${path} is not a file`), { code: 'EISDIR' });
      const file: OpenFile = { handle, size: stats.size, ino: stats.ino, readers: 0, checkedAt: this.now(), forgotten: false };
      this.files.set(path, file);
      while (this.files.size > this.maxOpen) this.forget(this.files.keys().next().value!);
      return file;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
}

/**
 * Spare read buffers of one size, shared by the streams of a store: a chunk given back
 * (RecyclingStream) is read into again by the next stream, so serving a large file
 * allocates nothing per chunk. At most `maxSpare` are kept.
 */
export class ChunkPool {
  private readonly spare: Buffer[] = [];

  constructor(
    readonly chunkBytes: number,
    private readonly maxSpare: number,
  ) {}

  /** a buffer for a read of `length` bytes (at most chunkBytes): a spare one, else one of that length, so a small file's read does not allocate a whole chunk */
  take(length: number): Buffer {
    return this.spare.pop() ?? Buffer.allocUnsafe(length);
  }

  /** `chunk` (a buffer from take, or a part of one from its start) is free again */
  give(chunk: Buffer): void {
    // a buffer this size from allocUnsafe is an ArrayBuffer of its own, never a slice of node's shared pool
    if (chunk.byteOffset !== 0 || chunk.buffer.byteLength !== this.chunkBytes || this.spare.length >= this.maxSpare) return;
    this.spare.push(chunk.length === this.chunkBytes ? chunk : Buffer.from(chunk.buffer, 0, this.chunkBytes));
  }

  /** how many spare buffers it holds (for tests) */
  get size(): number {
    return this.spare.length;
  }
}

/**
 * Bytes `start`..`end` (inclusive) of a kept descriptor, read positionally `chunkBytes` at a
 * time. Not fs.createReadStream with `fd`: its destroy closes the descriptor whatever
 * `autoClose` says, so one client leaving mid-download closed it under every other reader,
 * and the number could then be reused by another open file. This stream never closes the
 * descriptor; a destroy waits for a read in flight, and `done` runs once, after it.
 * Chunks are read into buffers of `pool`, and may be given back (RecyclingStream).
 */
export class KeptFileStream extends Readable implements RecyclingStream {
  private position: number;
  /** bytes read from the file so far (as fs.ReadStream's bytesRead) */
  bytesRead = 0;
  private reading = false;
  private afterRead?: () => void;
  private finished = false;

  constructor(
    private readonly fd: number,
    start: number,
    private readonly end: number,
    private readonly pool: ChunkPool,
    private readonly done: () => void,
  ) {
    super({ highWaterMark: pool.chunkBytes });
    this.position = start;
  }

  override _read(): void {
    const length = Math.min(this.pool.chunkBytes, this.end - this.position + 1);
    if (length <= 0) {
      this.push(null);
      return;
    }
    const buffer = this.pool.take(length);
    this.reading = true;
    read(this.fd, buffer, 0, length, this.position, (error, bytesRead) => {
      this.reading = false;
      if (this.afterRead) return this.afterRead();
      if (error) return this.destroy(error);
      if (bytesRead === 0) return this.destroy(new Error(`the file ended at byte ${this.position}, before byte ${this.end}`));
      this.position += bytesRead;
      this.bytesRead += bytesRead;
      this.push(bytesRead < buffer.length ? buffer.subarray(0, bytesRead) : buffer);
    });
  }

  recycle(chunk: Buffer): void {
    this.pool.give(chunk);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const finish = () => {
      this.release();
      callback(error);
    };
    if (this.reading) this.afterRead = finish;
    else finish();
  }

  override push(chunk: Buffer | null): boolean {
    const more = super.push(chunk);
    if (chunk === null) this.release();
    return more;
  }

  private release(): void {
    if (this.finished) return;
    this.finished = true;
    this.done();
  }
}
