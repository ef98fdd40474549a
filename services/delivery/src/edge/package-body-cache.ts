import type { Readable } from 'node:stream';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Small files (packages and indices) in memory, least recently used out first, bounded in
 * bytes. Published files are content-addressed (a key never changes its bytes), so an entry is never stale;
 * a hit saves the open/stat/read of the blob store, which costs more than the answer for
 * a 10 KB package. Concurrent misses of one key share one read.
 */
export class PackageBodyCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer>>();
  private bytes = 0;

  constructor(
    private readonly read: (key: string) => Promise<Readable>,
    /** files above this size are streamed, never cached */
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
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.read(key)
        .then(readAll)
        .then((body) => {
          this.add(key, body);
          return body;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
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
