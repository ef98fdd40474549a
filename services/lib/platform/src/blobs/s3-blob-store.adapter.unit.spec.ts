import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Client } from 'minio';
import { expect, it } from 'vitest';
import { BlobTooLargeError } from './blob-store.port';
import { S3BlobStore } from './s3-blob-store.adapter';

// the part splitting, checked quickly against a recording stand-in for the minio client (the
// int spec runs the same on Ceph radosgw; s3rver has no multipart upload)
function recordingClient() {
  const calls: string[] = [];
  const parts: Buffer[] = [];
  const client = {
    initiateNewMultipartUpload: async (_bucket: string, key: string) => {
      calls.push(`initiate ${key}`);
      return 'upload-1';
    },
    makeRequestAsyncOmit: async (options: { query: string; headers: Record<string, unknown> }, payload: Buffer) => {
      parts.push(Buffer.from(payload));
      calls.push(`part ${options.query} ${options.headers['Content-Length']}`);
      return { headers: { etag: `"etag-${parts.length}"` } };
    },
    completeMultipartUpload: async (_bucket: string, _key: string, _id: string, etags: { part: number; etag: string }[]) => {
      calls.push(`complete ${etags.map((e) => `${e.part}:${e.etag}`).join(',')}`);
    },
    abortMultipartUpload: async () => void calls.push('abort'),
    putObject: async (_bucket: string, key: string, body: Buffer) => {
      parts.push(Buffer.from(body));
      calls.push(`put ${key} ${body.length}`);
    },
    copyObject: async () => void calls.push('copy'),
    removeObject: async () => void calls.push('remove temporary'),
  };
  return { client: client as unknown as Client, calls, parts };
}

/** a body arriving in chunks of these sizes, 'a's then 'b's..., as slowly as a network would */
const chunks = (...sizes: number[]) =>
  Readable.from(
    (async function* () {
      for (const [i, size] of sizes.entries()) {
        await new Promise((resolve) => setImmediate(resolve));
        yield Buffer.alloc(size, 97 + i);
      }
    })(),
  );

it('splits a body larger than a part into exact parts, the last one short, and completes', async () => {
  const { client, calls, parts } = recordingClient();
  const store = new S3BlobStore(client, 'bucket', 5);
  const info = await store.put('pool/big', chunks(3, 4, 1, 4));
  expect(parts.map((part) => part.length)).toEqual([5, 5, 2]);
  expect(Buffer.concat(parts).toString()).toBe('aaabbbbcdddd');
  expect(info).toEqual({ key: 'pool/big', size: 12, sha256: createHash('sha256').update('aaabbbbcdddd').digest('hex') });
  expect(calls.filter((call) => !call.startsWith('part'))).toEqual([
    expect.stringMatching(/^initiate \.tmp\//),
    'complete 1:etag-1,2:etag-2,3:etag-3',
    'copy',
    'remove temporary',
  ]);
});

it('sends a body that fits in one part as a single PUT', async () => {
  const { client, calls } = recordingClient();
  await new S3BlobStore(client, 'bucket', 5).put('files/small', chunks(2, 3));
  expect(calls).toEqual([expect.stringMatching(/^put \.tmp\/.+ 5$/), 'copy', 'remove temporary']);
});

it('aborts the multipart upload when the body grows past maxBytes, and copies nothing', async () => {
  const { client, calls } = recordingClient();
  const store = new S3BlobStore(client, 'bucket', 5);
  await expect(store.put('files/too-big', chunks(4, 4, 4, 4), { maxBytes: 10 })).rejects.toBeInstanceOf(BlobTooLargeError);
  expect(calls.filter((call) => call.startsWith('part'))).toHaveLength(1);
  expect(calls).toContain('abort');
  expect(calls.some((call) => call.startsWith('complete') || call === 'copy')).toBe(false);
});
