import type { Readable } from 'node:stream';

/**
 * The blob store port. Puts stream and compute SHA-256 on the way; the bytes are never
 * held whole in memory. Adapters: filesystem (single node), MinIO / S3 (cluster).
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
}

export interface ByteRange {
  /** inclusive */
  start: number;
  /** inclusive */
  end: number;
}

export interface BlobStore {
  /** stores under `key`; resolves once durable */
  put(key: string, body: Readable, options?: PutOptions): Promise<BlobInfo>;
  /** stores content-addressed under `<prefix>/sha256/ab/cd/<sha256>` and returns that key */
  putContentAddressed(prefix: string, body: Readable, options?: PutOptions): Promise<BlobInfo>;
  get(key: string, range?: ByteRange): Promise<Readable>;
  head(key: string): Promise<{ size: number; sha256?: string } | undefined>;
  delete(key: string): Promise<void>;
  list(prefix: string): AsyncIterable<string>;
  /** a short-lived GET URL where the adapter supports it */
  presignedGet?(key: string, expirySeconds: number): Promise<string>;
  close(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Blob exceeds the limit of ${limit} bytes`);
  }
}
