import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll } from 'vitest';
import { blobStoreContract } from '@packyard/testing/contracts/blob-store.contract';
import { sharedRadosgw } from '@packyard/testing/servers/shared-servers';
import { createBlobStore } from './blob-store.factory';

// s3rver speaks enough S3 for single PUTs, ranged GETs and presigned URLs; it is started
// here on loopback so the MinIO adapter is tested against a real S3 protocol server
let server: S3rver;
let port: number;
const directory = mkdtempSync(join(tmpdir(), 'packyard-s3rver-'));

beforeAll(async () => {
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  port = (await server.run()).port;
});
afterAll(async () => {
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

blobStoreContract(
  'S3 (minio client against s3rver)',
  async () => ({
    open: () =>
      createBlobStore({
        kind: 's3',
        endPoint: '127.0.0.1',
        port,
        useSSL: false,
        accessKey: 'S3RVER',
        secretKey: 'S3RVER',
        bucket: `packyard-${randomUUID().slice(0, 8)}`,
      }),
  }),
  { noLargeObjects: 's3rver has no multipart upload, which bodies above the 16 MiB part size use' },
);

// Ceph's radosgw (single node, objects in memory), shared by the run: a full S3
// implementation, so multipart uploads of large bodies are covered here
const radosgw = await sharedRadosgw();
blobStoreContract(
  'S3 (minio client against Ceph radosgw)',
  async () => {
    const endpoint = new URL(radosgw.server!.endpoint);
    return {
      open: () =>
        createBlobStore({
          kind: 's3',
          endPoint: endpoint.hostname,
          port: Number(endpoint.port),
          useSSL: false,
          accessKey: radosgw.server!.accessKey,
          secretKey: radosgw.server!.secretKey,
          bucket: `packyard-${randomUUID().slice(0, 8)}`,
        }),
    };
  },
  { skip: radosgw.skip },
);
