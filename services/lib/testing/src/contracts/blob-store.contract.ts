import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { BlobNotFoundError, BlobTooLargeError, InvalidBlobKeyError, readAll, type BlobStore } from '@packyard/platform/blobs/blob-store.port';

export interface BlobStoreFixture {
  open(): Promise<BlobStore>;
  dispose?(): Promise<void>;
}

export interface BlobStoreContractOptions {
  skip?: string;
  /** why presigned GET URLs cannot be tested, if they cannot */
  noPresignedGet?: string;
  /** why a 100 MiB object cannot be tested, if it cannot */
  noLargeObjects?: string;
}

const MiB = 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const bodyOf = (bytes: Buffer, chunk = 64 * 1024) =>
  Readable.from((function* () {
    for (let offset = 0; offset < bytes.length; offset += chunk) yield bytes.subarray(offset, offset + chunk);
  })());
const keysOf = async (store: BlobStore, prefix: string, options?: { modifiedBefore?: Date }) => {
  const keys: string[] = [];
  for await (const key of store.list(prefix, options)) keys.push(key);
  return keys.sort();
};

/** The behaviour every BlobStore adapter must show. */
export function blobStoreContract(adapter: string, setup: () => Promise<BlobStoreFixture>, options: BlobStoreContractOptions = {}) {
  describe.skipIf(options.skip !== undefined)(`BlobStore contract: ${adapter}${options.skip ? ` (skipped: ${options.skip})` : ''}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    const openStore = async () => {
      const fixture = await setup();
      const store = await fixture.open();
      cleanups.push(async () => {
        await store.close();
        await fixture.dispose?.();
      });
      return store;
    };
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    it('stores a streamed body, hashing it on the way, and gives the bytes back', async () => {
      const store = await openStore();
      const bytes = randomBytes(3 * MiB + 17);
      const info = await store.put('staging/upload-1', bodyOf(bytes), { contentType: 'application/vnd.debian.binary-package' });
      expect(info).toEqual({ key: 'staging/upload-1', size: bytes.length, sha256: sha256(bytes) });
      expect(await store.head('staging/upload-1')).toEqual({ size: bytes.length, sha256: sha256(bytes) });
      expect((await readAll(await store.get('staging/upload-1'))).equals(bytes)).toBe(true);
    });

    it('gives a blob back whole with getBytes, content-addressed or not', async () => {
      const store = await openStore();
      const bytes = randomBytes(40_000);
      await store.put('manifests/plain', bodyOf(bytes, 4096));
      const addressed = await store.putContentAddressed('manifests', bodyOf(bytes, 4096));
      expect((await store.getBytes('manifests/plain')).equals(bytes)).toBe(true);
      expect((await store.getBytes(addressed.key)).equals(bytes)).toBe(true);
    });

    it('replaces the blob at a key on a second put', async () => {
      const store = await openStore();
      await store.put('state/pointer', bodyOf(Buffer.from('generation-1')));
      await store.put('state/pointer', bodyOf(Buffer.from('generation-22')));
      expect((await readAll(await store.get('state/pointer'))).toString()).toBe('generation-22');
      expect((await store.head('state/pointer'))?.size).toBe(13);
    });

    it('stores content-addressed under <prefix>/sha256/ab/cd/<sha>, once however often it arrives', async () => {
      const store = await openStore();
      const bytes = Buffer.from('Package: hello\nVersion: 1.0\n');
      const digest = sha256(bytes);
      const first = await store.putContentAddressed('pool', bodyOf(bytes));
      const second = await store.putContentAddressed('pool', bodyOf(bytes));
      expect(first).toEqual({ key: `pool/sha256/${digest.slice(0, 2)}/${digest.slice(2, 4)}/${digest}`, size: bytes.length, sha256: digest });
      expect(second).toEqual(first);
      expect(await keysOf(store, 'pool/')).toEqual([first.key]);
      expect((await store.head(first.key))?.sha256).toBe(digest);
    });

    it('stores bytes held in memory at the address a streamed put gives them, once however often they come', async () => {
      const store = await openStore();
      const bytes = randomBytes(150_000);
      const streamed = await store.putContentAddressed('indices', bodyOf(bytes));
      const whole = await store.putBytesContentAddressed('indices', bytes, { contentType: 'application/gzip' });
      const small = await store.putBytesContentAddressed('indices', Buffer.from('<repomd/>\n'));
      expect(whole).toEqual(streamed);
      expect(await store.putBytesContentAddressed('indices', Buffer.from('<repomd/>\n'))).toEqual(small);
      expect(await keysOf(store, 'indices/')).toEqual([streamed.key, small.key].sort());
      expect(await store.head(small.key)).toEqual({ size: 10, sha256: sha256(Buffer.from('<repomd/>\n')) });
      expect((await store.getBytes(small.key)).toString()).toBe('<repomd/>\n');
    });

    it('refuses a body over maxBytes while it streams, and stores nothing', async () => {
      const store = await openStore();
      let produced = 0;
      // an endless body: the put can only finish by cutting it off
      const endless = new Readable({
        read() {
          produced += 64 * 1024;
          this.push(Buffer.alloc(64 * 1024, 1));
        },
      });
      await expect(store.put('staging/too-big', endless, { maxBytes: MiB })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(produced).toBeLessThan(4 * MiB);
      await expect(store.putContentAddressed('pool', bodyOf(randomBytes(MiB + 1)), { maxBytes: MiB })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(await store.head('staging/too-big')).toBeUndefined();
      expect(await keysOf(store, '')).toEqual([]);
      const exact = await store.put('staging/exact', bodyOf(randomBytes(MiB)), { maxBytes: MiB });
      expect(exact.size).toBe(MiB);
    });

    it('stores nothing when the body fails half way', async () => {
      const store = await openStore();
      const broken = Readable.from((async function* () {
        yield randomBytes(100_000);
        throw new Error('client went away');
      })());
      await expect(store.put('staging/broken', broken)).rejects.toThrow('client went away');
      expect(await keysOf(store, '')).toEqual([]);
    });

    it('reads byte ranges, clamping the end and refusing a start past the end', async () => {
      const store = await openStore();
      await store.put('files/abc', bodyOf(Buffer.from('0123456789')));
      expect((await readAll(await store.get('files/abc', { start: 2, end: 5 }))).toString()).toBe('2345');
      expect((await readAll(await store.get('files/abc', { start: 7, end: 100 }))).toString()).toBe('789');
      await expect(store.get('files/abc', { start: 10, end: 12 })).rejects.toBeInstanceOf(RangeError);
    });

    it('reports missing blobs: get throws BlobNotFoundError, head is undefined, delete is quiet', async () => {
      const store = await openStore();
      await expect(store.get('files/missing')).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.get('files/missing', { start: 0, end: 1 })).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.getBytes('files/missing')).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(await store.head('files/missing')).toBeUndefined();
      await store.delete('files/missing');
      await store.put('files/present', bodyOf(Buffer.from('x')));
      await store.delete('files/present');
      expect(await store.head('files/present')).toBeUndefined();
      await store.put('files/nested/blob', bodyOf(Buffer.from('x')));
      expect(await store.head('files/nested')).toBeUndefined();
      await expect(store.get('files/nested')).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.getBytes('files/nested')).rejects.toBeInstanceOf(BlobNotFoundError);
      await store.delete('files/nested');
      expect(await store.head('files/nested/blob')).toEqual({ size: 1, sha256: createHash('sha256').update('x').digest('hex') });
    });

    it('moves a blob to another key with its hash; a reader that opened it first still reads it whole', async () => {
      const store = await openStore();
      const bytes = randomBytes(2 * MiB + 5);
      await store.put('staging/upload-2', bodyOf(bytes), { durable: false });
      const openedBefore = await store.get('staging/upload-2');
      await store.put('packages/r/old', bodyOf(Buffer.from('replaced')));
      await store.move('staging/upload-2', 'packages/r/old');
      expect(await store.head('staging/upload-2')).toBeUndefined();
      expect(await keysOf(store, 'staging/')).toEqual([]);
      expect(await store.head('packages/r/old')).toEqual({ size: bytes.length, sha256: sha256(bytes) });
      expect((await readAll(await store.get('packages/r/old'))).equals(bytes)).toBe(true);
      expect((await readAll(openedBefore)).equals(bytes)).toBe(true);
      await expect(store.move('staging/upload-2', 'packages/r/again')).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(await store.head('packages/r/again')).toBeUndefined();
    });

    it('lists keys by prefix, partial segments included', async () => {
      const store = await openStore();
      for (const key of ['pool/x/1', 'pool/x/2', 'pool/y', 'poolside/z', 'staging/1']) await store.put(key, bodyOf(Buffer.from(key)));
      expect(await keysOf(store, 'pool/')).toEqual(['pool/x/1', 'pool/x/2', 'pool/y']);
      expect(await keysOf(store, 'pool')).toEqual(['pool/x/1', 'pool/x/2', 'pool/y', 'poolside/z']);
      expect(await keysOf(store, 'pool/x/')).toEqual(['pool/x/1', 'pool/x/2']);
      expect(await keysOf(store, 'nothing/')).toEqual([]);
    });

    it('lists only keys last written before a time, when asked', async () => {
      const store = await openStore();
      // over a second apart on both sides: S3 lists modification times in whole seconds
      await store.put('staging/old', bodyOf(Buffer.from('old')));
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const between = new Date();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await store.put('staging/new', bodyOf(Buffer.from('new')));
      expect(await keysOf(store, 'staging/', { modifiedBefore: between })).toEqual(['staging/old']);
      expect(await keysOf(store, 'staging/', { modifiedBefore: new Date(Date.now() + 1000) })).toEqual(['staging/new', 'staging/old']);
    });

    it('removes no stored blob and no put in progress when it clears abandoned temporaries', async () => {
      const store = await openStore();
      await store.put('files/kept', bodyOf(Buffer.from('kept')));
      let release!: () => void;
      const paused = new Promise<void>((resolve) => (release = resolve));
      const slowBody = Readable.from((async function* () {
        yield Buffer.from('first half ');
        await paused;
        yield Buffer.from('second half');
      })());
      const putting = store.put('files/slow', slowBody);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // a cutoff before the put started: the put is live, whatever the adapter keeps for it
      expect(await store.removeAbandonedTemporaries(new Date(Date.now() - 60_000))).toBe(0);
      release();
      await putting;
      expect((await readAll(await store.get('files/slow'))).toString()).toBe('first half second half');
      expect(await store.removeAbandonedTemporaries(new Date(Date.now() + 60_000))).toBe(0);
      expect(await keysOf(store, 'files/')).toEqual(['files/kept', 'files/slow']);
    });

    it('refuses keys that could escape the store or hit its temporary area', async () => {
      const store = await openStore();
      for (const key of ['../etc/passwd', '/abs', 'a//b', '.tmp/x', 'a/../b', 'a\\b', '', 'a/\u0000']) {
        await expect(store.put(key, bodyOf(Buffer.from('x'))), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.get(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
      }
    });

    it.skipIf(options.noPresignedGet !== undefined)(
      `serves a presigned GET URL${options.noPresignedGet ? ` (skipped: ${options.noPresignedGet})` : ''}`,
      async () => {
        const store = await openStore();
        await store.put('files/signed', bodyOf(Buffer.from('signed bytes')));
        const response = await fetch(await store.presignedGet!('files/signed', 60));
        expect(response.status).toBe(200);
        expect(await response.text()).toBe('signed bytes');
      },
    );

    it.skipIf(options.noLargeObjects !== undefined)(
      `stores and reads back a 100 MiB object without holding it whole${options.noLargeObjects ? ` (skipped: ${options.noLargeObjects})` : ''}`,
      async () => {
        const store = await openStore();
        const chunk = randomBytes(MiB);
        const expected = createHash('sha256');
        for (let i = 0; i < 100; i++) expected.update(chunk);
        const body = Readable.from((function* () {
          for (let i = 0; i < 100; i++) yield chunk;
        })());
        const info = await store.putContentAddressed('pool', body);
        expect(info).toMatchObject({ size: 100 * MiB, sha256: expected.digest('hex') });
        const readBack = createHash('sha256');
        let size = 0;
        for await (const part of await store.get(info.key)) {
          readBack.update(part as Buffer);
          size += (part as Buffer).length;
        }
        expect(size).toBe(100 * MiB);
        expect(readBack.digest('hex')).toBe(info.sha256);
      },
      120_000,
    );
  });
}
