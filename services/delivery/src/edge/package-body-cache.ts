import type { Readable } from 'node:stream';
import { readAll, type ByteRange } from '@packyard/platform/blobs/index';

/** a block's entry: NUL is in no blob key (blob-key.ts), so it never names a whole file */
const blockEntryKey = (key: string, index: number) => `${key}\u0000${index}`;
/** a file is kept by blocks only when it takes at most this share of the budget */
const BLOCK_CACHED_FILE_SHARE = 4;
/** block sightings remembered (a block asked for once); past this, forgotten all at once */
const MAX_SIGHTED_BLOCKS = 10_000;

/**
 * Small files (packages and indices) in memory, least recently used out first, bounded in
 * bytes. Published files are content-addressed (a key never changes its bytes), so an entry is never stale;
 * a hit saves the open/stat/read of the blob store, which costs more than the answer for
 * a 10 KB package. Concurrent misses of one key share one read.
 * A larger file, up to a quarter of the budget, is kept by blocks of `maxFileBytes`, in the
 * same budget, once a block has been asked for twice (a package a fleet is downloading, not one a single machine fetched
 * once, which would push the small files out): its answers then cost one copy into the
 * socket instead of a read from the page cache and that copy.
 */
export class PackageBodyCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer>>();
  /** blocks asked for once, by entry key */
  private readonly sighted = new Set<string>();
  private bytes = 0;

  constructor(
    private readonly read: (key: string, range?: ByteRange) => Promise<Readable>,
    /** files above this size are kept by blocks of this size (see blocks) */
    readonly maxFileBytes: number,
    private readonly maxTotalBytes: number,
  ) {}

  /** the bytes when cached (refreshing their recency), else undefined */
  get(key: string): Buffer | undefined {
    const body = this.entries.get(key);
    if (body) {
      this.entries.delete(key);
      this.entries.set(key, body);
    }
    return body;
  }

  load(key: string): Promise<Buffer> {
    return this.loadEntry(key, key);
  }

  /**
   * Bytes `start`..`end` (inclusive) of a file larger than maxFileBytes from its cached
   * blocks, in order; undefined unless every block is cached. A missing block asked for
   * the second time is read into the cache meanwhile (the caller streams this answer from
   * the store).
   */
  blocks(key: string, size: number, start: number, end: number): Buffer[] | undefined {
    // one file never takes more than a quarter of the budget: a DVD image asked for twice does not push out everything else
    if (size > this.maxTotalBytes / BLOCK_CACHED_FILE_SHARE) return undefined;
    const blockBytes = this.maxFileBytes;
    const first = Math.floor(start / blockBytes);
    const last = Math.floor(end / blockBytes);
    const parts: Buffer[] = [];
    let complete = true;
    for (let index = first; index <= last; index++) {
      const entryKey = blockEntryKey(key, index);
      const block = this.get(entryKey);
      if (!block) {
        complete = false;
        this.askedFor(entryKey, key, { start: index * blockBytes, end: Math.min(size, (index + 1) * blockBytes) - 1 });
      } else if (complete) {
        parts.push(block.subarray(index === first ? start - index * blockBytes : 0, index === last ? end - index * blockBytes + 1 : block.length));
      }
    }
    return complete ? parts : undefined;
  }

  private askedFor(entryKey: string, key: string, range: ByteRange) {
    if (this.loading.has(entryKey)) return;
    if (this.sighted.delete(entryKey)) {
      // a failed read is only a miss: the answers stream from the store as before
      this.loadEntry(entryKey, key, range).catch(() => undefined);
      return;
    }
    if (this.sighted.size >= MAX_SIGHTED_BLOCKS) this.sighted.clear();
    this.sighted.add(entryKey);
  }

  private loadEntry(entryKey: string, key: string, range?: ByteRange): Promise<Buffer> {
    let pending = this.loading.get(entryKey);
    if (!pending) {
      pending = this.read(key, range)
        .then(readAll)
        .then((body) => {
          // a block is answered as the length its range names: a store that gave fewer bytes is not believed
          if (range && body.length !== range.end - range.start + 1) throw new Error(`${key}: bytes ${range.start}-${range.end} read as ${body.length} bytes`);
          this.add(entryKey, body);
          return body;
        })
        .finally(() => this.loading.delete(entryKey));
      this.loading.set(entryKey, pending);
    }
    return pending;
  }

  private add(key: string, body: Buffer) {
    if (this.entries.has(key) || body.length > this.maxFileBytes) return;
    this.entries.set(key, body);
    this.bytes += body.length;
    for (const [oldest, evicted] of this.entries) {
      if (this.bytes <= this.maxTotalBytes) break;
      this.entries.delete(oldest);
      this.bytes -= evicted.length;
    }
  }
}
