import { open, stat, type FileHandle } from 'node:fs/promises';

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
