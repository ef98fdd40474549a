import type { Readable } from 'node:stream';

/**
 * The blob store port. Puts stream and compute SHA-256 on the way; the bytes are never
 * held whole in memory (but by putBytesContentAddressed, for bytes the caller holds
 * already). Adapters: filesystem (single node), MinIO / S3 (cluster).
 */
export interface BlobInfo {
  key: string;
  size: number;
  sha256: string;
}

export interface PutOptions {
  /** refuse (and store nothing) once more than this many bytes arrived */
  maxBytes?: number;
  contentType?: string;
  /**
   * false for short-lived objects (an upload being staged): stored without waiting for
   * the disk. A crash loses them, but also the request that would have claimed them.
   * Default true.
   */
  durable?: boolean;
}

export interface ByteRange {
  /** inclusive */
  start: number;
  /** inclusive */
  end: number;
}

/**
 * A stream from `BlobStore.get` may let its consumer give a chunk back once nothing refers
 * to it any more (its bytes were handed to the kernel), so a later read fills that buffer
 * instead of allocating one: large files then cost no allocation per chunk, and the GC
 * no work for them. Giving back a chunk still in use would corrupt a later answer.
 */
export interface RecyclingStream {
  recycle(chunk: Buffer): void;
}

/** the stream's `recycle`, when it has one */
export const recyclerOf = (stream: Readable): RecyclingStream['recycle'] | undefined => {
  const recycle = (stream as Readable & Partial<RecyclingStream>).recycle;
  return recycle && ((chunk) => recycle.call(stream, chunk));
};

export interface BlobStore {
  /** stores under `key`; resolves once durable */
  put(key: string, body: Readable, options?: PutOptions): Promise<BlobInfo>;
  /** stores content-addressed under `<prefix>/sha256/ab/cd/<sha256>` and returns that key */
  putContentAddressed(prefix: string, body: Readable, options?: PutOptions): Promise<BlobInfo>;
  /**
   * putContentAddressed for bytes already in memory (a publication's index files): written
   * whole, without a stream's round trip per step; stored once however often they come
   */
  putBytesContentAddressed(prefix: string, bytes: Buffer, options?: Pick<PutOptions, 'contentType' | 'durable'>): Promise<BlobInfo>;
  /** throws `BlobNotFoundError`; a range starting at or past the end throws `RangeError`; the stream may be a `RecyclingStream` */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * A small blob's bytes whole (a publication manifest, read at a repository's first
   * request): the filesystem store reads it in one blocking call, without a stream's round
   * trips through the thread pool (open, stat, read) that each wait their turn on a busy
   * process; a big blob belongs in `get`. Throws `BlobNotFoundError`.
   */
  getBytes(key: string): Promise<Buffer>;
  head(key: string): Promise<{ size: number; sha256?: string } | undefined>;
  /**
   * Moves the blob at `source` to `target` (replacing what is there) and resolves once it
   * is durable there; `source` is gone. A reader that opened `source` before still reads
   * it whole. Throws `BlobNotFoundError` when `source` is missing.
   */
  move(source: string, target: string): Promise<void>;
  /** deleting a missing key is not an error */
  delete(key: string): Promise<void>;
  /** every key starting with `prefix` (last written before `modifiedBefore`, when given), in no promised order */
  list(prefix: string, options?: { modifiedBefore?: Date }): AsyncIterable<string>;
  /**
   * Removes the temporary objects of puts that ended without cleaning up (a crash, a killed
   * process): those not written to since `before`. A put in progress writes more often, so
   * a cutoff older than the longest pause a body may take never touches one.
   * Resolves with how many were removed.
   */
  removeAbandonedTemporaries(before: Date): Promise<number>;
  /** a short-lived GET URL where the adapter supports it */
  presignedGet?(key: string, expirySeconds: number): Promise<string>;
  close(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Blob exceeds the limit of ${limit} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No blob at ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

/**
 * Keys are `/`-separated segments of printable characters; empty, `.`/`..` and
 * dot-leading segments are refused (adapters keep their temporary objects under `.tmp/`).
 */
export class InvalidBlobKeyError extends Error {
  constructor(readonly key: string) {
    super(`Invalid blob key ${JSON.stringify(key)}`);
    this.name = 'InvalidBlobKeyError';
  }
}

/** every byte of a stream (of a blob small enough to hold) */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
