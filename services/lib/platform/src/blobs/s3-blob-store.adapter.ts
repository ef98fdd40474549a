import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
// the client is loaded when a store connects or copies: a program on the filesystem store never loads it (about 170 ms at each start here)
import type { Client } from 'minio';
import { assertValidKey, contentAddressedKey, resolveRange, TEMPORARY_PREFIX } from './blob-key';
import { BlobNotFoundError, readAll, type BlobInfo, type BlobStore, type ByteRange, type PutOptions } from './blob-store.port';
import { HashingLimiter } from './hashing-limiter';

export interface S3BlobStoreOptions {
  endPoint: string;
  port: number;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region?: string;
  /** bytes held in memory per upload; bodies above it go multipart (S3's minimum is 5 MiB) */
  partSize?: number;
}

const DEFAULT_PART_SIZE = 16 * 1024 * 1024;

const isMissing = (error: unknown) => ['NoSuchKey', 'NotFound'].includes((error as { code?: string }).code ?? '');

/**
 * Blobs in a MinIO / S3 bucket. The SHA-256 is known only once the body has streamed,
 * but S3 metadata is sent before it: uploads land under `.tmp/` and a server-side copy
 * puts them at their key with the hash attached (for content addressing the key is the
 * hash). A failed or oversized upload never reaches its key.
 */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: Client,
    private readonly bucket: string,
    private readonly partSize: number,
  ) {}

  static async connect({ bucket, region, partSize = DEFAULT_PART_SIZE, ...connection }: S3BlobStoreOptions): Promise<S3BlobStore> {
    const { Client } = await import('minio');
    const client = new Client({ ...connection, region });
    if (!(await client.bucketExists(bucket))) {
      await client.makeBucket(bucket, region).catch((error: { code?: string }) => {
        // another replica created it first
        if (error.code !== 'BucketAlreadyOwnedByYou') throw error;
      });
    }
    return new S3BlobStore(client, bucket, partSize);
  }

  /** uploads to a temporary key and copies it to the key `keyFor` picks once the hash is known */
  private async upload(body: Readable, options: PutOptions, keyFor: (sha256: string) => string): Promise<BlobInfo> {
    const temporary = `${TEMPORARY_PREFIX}${randomUUID()}`;
    const limiter = new HashingLimiter(options.maxBytes);
    const contentType = options.contentType ?? 'application/octet-stream';
    try {
      await pipeline(body, limiter, (hashed: AsyncIterable<Buffer>) => this.uploadInParts(temporary, hashed, contentType));
      const info = { key: keyFor(limiter.sha256), size: limiter.size, sha256: limiter.sha256 };
      const { CopyDestinationOptions, CopySourceOptions } = await import('minio');
      await this.client.copyObject(
        new CopySourceOptions({ Bucket: this.bucket, Object: temporary }),
        new CopyDestinationOptions({
          Bucket: this.bucket,
          Object: info.key,
          UserMetadata: { sha256: info.sha256 },
          MetadataDirective: 'REPLACE',
          Headers: { 'Content-Type': contentType },
        }),
      );
      return info;
    } finally {
      await this.client.removeObject(this.bucket, temporary).catch(() => undefined);
    }
  }

  /**
   * Holds at most one part in memory. A body that fits in one part is a single PUT; a
   * larger one becomes a multipart upload (the minio client's own stream upload would
   * buffer parts of hundreds of MiB when the size is unknown). A failure aborts it.
   */
  private async uploadInParts(key: string, body: AsyncIterable<Buffer>, contentType: string): Promise<void> {
    const parts: { part: number; etag: string }[] = [];
    let uploadId: string | undefined;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (bytes: Buffer) => {
      uploadId ??= await this.client.initiateNewMultipartUpload(this.bucket, key, { 'Content-Type': contentType });
      const part = parts.length + 1;
      const response = await this.client.makeRequestAsyncOmit(
        {
          method: 'PUT',
          bucketName: this.bucket,
          objectName: key,
          query: `partNumber=${part}&uploadId=${encodeURIComponent(uploadId)}`,
          headers: { 'Content-Length': bytes.length, 'Content-MD5': createHash('md5').update(bytes).digest('base64') },
        },
        bytes,
      );
      parts.push({ part, etag: String(response.headers.etag ?? '').replace(/^"|"$/g, '') });
    };
    try {
      for await (const chunk of body) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        // a part goes out only once more than a part arrived: a body of exactly one part stays a single PUT
        while (pendingBytes > this.partSize) {
          const joined = Buffer.concat(pending);
          await flush(joined.subarray(0, this.partSize));
          pending = [joined.subarray(this.partSize)];
          pendingBytes = pending[0].length;
        }
      }
      const rest = Buffer.concat(pending);
      if (uploadId === undefined) {
        await this.client.putObject(this.bucket, key, rest, rest.length, { 'Content-Type': contentType });
        return;
      }
      if (rest.length > 0) await flush(rest);
      await this.client.completeMultipartUpload(this.bucket, key, uploadId, parts);
    } catch (error) {
      if (uploadId !== undefined) await this.client.abortMultipartUpload(this.bucket, key, uploadId).catch(() => undefined);
      throw error;
    }
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<BlobInfo> {
    assertValidKey(key);
    return this.upload(body, options, () => key);
  }

  async putContentAddressed(prefix: string, body: Readable, options: PutOptions = {}): Promise<BlobInfo> {
    return this.upload(body, options, (sha256) => contentAddressedKey(prefix, sha256));
  }

  async putBytesContentAddressed(prefix: string, bytes: Buffer, options: Pick<PutOptions, 'contentType' | 'durable'> = {}): Promise<BlobInfo> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const info = { key: contentAddressedKey(prefix, sha256), size: bytes.length, sha256 };
    if (await this.head(info.key)) return info;
    // one PUT straight to its address: a reader sees the object whole or not at all, and its bytes are the key's
    await this.client.putObject(this.bucket, info.key, bytes, bytes.length, { 'Content-Type': options.contentType ?? 'application/octet-stream', sha256 });
    return info;
  }

  async getBytes(key: string): Promise<Buffer> {
    return readAll(await this.get(key));
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    assertValidKey(key);
    try {
      if (!range) return await this.client.getObject(this.bucket, key);
      const head = await this.head(key);
      if (!head) throw new BlobNotFoundError(key);
      const { start, end } = resolveRange(range, head.size);
      return await this.client.getPartialObject(this.bucket, key, start, end - start + 1);
    } catch (error) {
      throw isMissing(error) ? new BlobNotFoundError(key) : error;
    }
  }

  async head(key: string): Promise<{ size: number; sha256?: string } | undefined> {
    assertValidKey(key);
    try {
      const stat = await this.client.statObject(this.bucket, key);
      const sha256 = stat.metaData?.sha256 as string | undefined;
      return { size: stat.size, ...(sha256 ? { sha256 } : {}) };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** a copy inside the store (no bytes through this process), then the source goes */
  async move(source: string, target: string): Promise<void> {
    assertValidKey(source);
    assertValidKey(target);
    const { CopyDestinationOptions, CopySourceOptions } = await import('minio');
    try {
      await this.client.copyObject(
        new CopySourceOptions({ Bucket: this.bucket, Object: source }),
        new CopyDestinationOptions({ Bucket: this.bucket, Object: target, MetadataDirective: 'COPY' }),
      );
    } catch (error) {
      throw isMissing(error) ? new BlobNotFoundError(source) : error;
    }
    await this.client.removeObject(this.bucket, source);
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.client.removeObject(this.bucket, key);
  }

  async *list(prefix: string, { modifiedBefore }: { modifiedBefore?: Date } = {}): AsyncIterable<string> {
    if (prefix) assertValidKey(`${prefix}x`);
    for await (const { name, lastModified } of this.objectsUnder(prefix)) {
      if (name.startsWith(TEMPORARY_PREFIX)) continue;
      if (modifiedBefore && !(lastModified < modifiedBefore)) continue;
      yield name;
    }
  }

  private async *objectsUnder(prefix: string): AsyncIterable<{ name: string; lastModified: Date }> {
    for await (const item of this.client.listObjectsV2(this.bucket, prefix, true)) {
      const { name, lastModified } = item as { name?: string; lastModified?: Date };
      if (name && lastModified) yield { name, lastModified };
    }
  }

  /** the `.tmp/` objects a put copies from; a multipart upload left open is the bucket's lifecycle rule's to abort */
  async removeAbandonedTemporaries(before: Date): Promise<number> {
    let removed = 0;
    for await (const { name, lastModified } of this.objectsUnder(TEMPORARY_PREFIX)) {
      if (!(lastModified < before)) continue;
      await this.client.removeObject(this.bucket, name);
      removed++;
    }
    return removed;
  }

  presignedGet(key: string, expirySeconds: number): Promise<string> {
    assertValidKey(key);
    return this.client.presignedGetObject(this.bucket, key, expirySeconds);
  }

  async close(): Promise<void> {}
}
