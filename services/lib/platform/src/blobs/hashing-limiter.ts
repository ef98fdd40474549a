import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './blob-store.port';

/**
 * Passes bytes through while counting them and computing their SHA-256, and fails the
 * stream with `BlobTooLargeError` as soon as more than `maxBytes` went by, so an
 * oversized upload is cut off instead of being stored and checked afterwards.
 */
export class HashingLimiter extends Transform {
  private readonly hash = createHash('sha256');
  size = 0;

  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return callback(new BlobTooLargeError(this.maxBytes));
    this.hash.update(chunk);
    callback(null, chunk);
  }

  /** hex digest; only once the stream has ended */
  get sha256(): string {
    return this.hash.copy().digest('hex');
  }
}
