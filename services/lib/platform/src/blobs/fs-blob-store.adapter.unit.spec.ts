import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { blobStoreContract } from '@packyard/testing/contracts/blob-store.contract';
import { createBlobStore } from './blob-store.factory';
import { BlobNotFoundError, recyclerOf } from './blob-store.port';
import { FsBlobStore } from './fs-blob-store.adapter';

blobStoreContract(
  'filesystem',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
    return {
      open: () => createBlobStore({ kind: 'fs', dir }),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  { noPresignedGet: 'a filesystem has no URLs; delivery serves these blobs itself' },
);

describe('filesystem blob store', () => {
  it('leaves no temporary file behind when the body fails before the file is open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
    try {
      const store = await createBlobStore({ kind: 'fs', dir });
      for (let attempt = 0; attempt < 20; attempt++) {
        // as when the parser gives up while the store is still preparing its temporary file
        const failingAtOnce = new PassThrough();
        // the store hears of the failure through the stream's state, not this listener
        failingAtOnce.on('error', () => undefined);
        failingAtOnce.destroy(new Error('not a package'));
        await expect(store.putContentAddressed('packages/r', failingAtOnce)).rejects.toThrow('not a package');
      }
      expect(await readdir(join(dir, '.tmp'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes temporary files a crashed put left behind, once nothing has written them since the cutoff', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
    try {
      const store = await createBlobStore({ kind: 'fs', dir });
      mkdirSync(join(dir, '.tmp'));
      writeFileSync(join(dir, '.tmp', 'crashed'), 'half a package');
      writeFileSync(join(dir, '.tmp', 'recent'), 'maybe someone is still writing');
      const anHourAgo = new Date(Date.now() - 3600_000);
      utimesSync(join(dir, '.tmp', 'crashed'), anHourAgo, anHourAgo);
      expect(await store.removeAbandonedTemporaries(new Date(Date.now() - 60_000))).toBe(1);
      expect(await readdir(join(dir, '.tmp'))).toEqual(['recent']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('kept descriptors of content-addressed blobs', () => {
    const readAll = async (stream: Readable) => Buffer.concat(await stream.toArray());
    /** descriptors of this process open on files under `dir` */
    const openUnder = (dir: string) =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
        } catch {
          return false;
        }
      }).length;

    it('answers ranges right while many readers share the descriptors and the least recently read are closed', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
      const store = new FsBlobStore(dir, { maxOpenFiles: 2 });
      try {
        const blobs = await Promise.all(
          Array.from({ length: 4 }, async () => {
            const bytes = randomBytes(3 * 1024 * 1024 + 17);
            return { bytes, key: (await store.putContentAddressed('packages/r', Readable.from([bytes]))).key };
          }),
        );
        const reads = Array.from({ length: 200 }, (_, index) => {
          const { bytes, key } = blobs[index % blobs.length];
          const start = (index * 7919) % bytes.length;
          const end = Math.min(bytes.length - 1, start + ((index * 104_729) % (2 * 1024 * 1024)));
          const whole = index % 10 === 0;
          return { expected: whole ? bytes : bytes.subarray(start, end + 1), read: store.get(key, whole ? undefined : { start, end }).then(readAll) };
        });
        for (const { expected, read } of reads) expect((await read).equals(expected)).toBe(true);
        expect(openUnder(dir)).toBe(2);
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('keeps serving a blob to everyone after clients left in the middle of their downloads', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
      const store = new FsBlobStore(dir);
      try {
        const bytes = randomBytes(5 * 1024 * 1024 + 3);
        const { key } = await store.putContentAddressed('packages/r', Readable.from([bytes]));
        // a client that goes away after its first chunk, while others read the same descriptor
        const leaving = Array.from({ length: 6 }, async () => {
          const stream = await store.get(key);
          stream.once('data', () => stream.destroy());
          await new Promise((resolve) => stream.once('close', resolve));
        });
        const staying = Array.from({ length: 3 }, async () => readAll(await store.get(key, { start: 1_000_000, end: 3_999_999 })));
        await Promise.all(leaving);
        for (const read of staying) expect((await read).equals(bytes.subarray(1_000_000, 4_000_000))).toBe(true);
        expect((await readAll(await store.get(key))).equals(bytes)).toBe(true);
        expect(openUnder(dir)).toBe(1);
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('reads into the buffers its readers gave back, and every byte read is still right', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
      const store = new FsBlobStore(dir);
      try {
        const bytes = randomBytes(2 * 1024 * 1024 + 5);
        const { key } = await store.putContentAddressed('packages/r', Readable.from([bytes]));
        /** reads the stream whole, copying each chunk out and giving it back; returns the bytes and the buffers the chunks were in */
        const readGivingBack = async (stream: Readable) => {
          const recycle = recyclerOf(stream)!;
          const copies: Buffer[] = [];
          const buffers = new Set<ArrayBufferLike>();
          for await (const chunk of stream as AsyncIterable<Buffer>) {
            copies.push(Buffer.from(chunk));
            buffers.add(chunk.buffer);
            recycle(chunk);
          }
          return { bytes: Buffer.concat(copies), buffers };
        };
        const first = await readGivingBack(await store.get(key));
        expect(first.bytes.equals(bytes)).toBe(true);
        // three 1 MiB reads: the first two buffers were given back before the third read, which reused one
        expect(first.buffers.size).toBeLessThan(3);
        const second = await readGivingBack(await store.get(key, { start: 1000, end: 2 * 1024 * 1024 + 4 }));
        expect(second.bytes.equals(bytes.subarray(1000))).toBe(true);
        expect([...second.buffers].every((buffer) => first.buffers.has(buffer))).toBe(true);
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('serves no blob that was deleted, by this store at once and by another process once the descriptor is due for its check', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
      const edge = new FsBlobStore(dir, { revalidateMs: 50 });
      // the main process's store, which a purge deletes through
      const primary = new FsBlobStore(dir);
      try {
        const bytes = randomBytes(64 * 1024);
        const { key } = await edge.putContentAddressed('packages/r', Readable.from([bytes]));
        expect((await readAll(await edge.get(key))).equals(bytes)).toBe(true);
        const reading = await edge.get(key);
        await edge.delete(key);
        // a reader that opened it before finishes
        expect((await readAll(reading)).equals(bytes)).toBe(true);
        await expect(edge.get(key)).rejects.toBeInstanceOf(BlobNotFoundError);

        const again = await edge.putContentAddressed('packages/r', Readable.from([bytes]));
        expect((await readAll(await edge.get(again.key))).equals(bytes)).toBe(true);
        await primary.delete(again.key);
        await new Promise((resolve) => setTimeout(resolve, 60));
        await expect(edge.get(again.key)).rejects.toBeInstanceOf(BlobNotFoundError);
        expect(openUnder(dir)).toBe(0);
      } finally {
        await edge.close();
        await primary.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
