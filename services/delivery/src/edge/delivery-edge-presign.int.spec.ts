import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pino from 'pino';
import { Registry } from 'prom-client';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelStore, inboxStream, replyThrough, type ReadModelStore } from '@packyard/platform';
import { createBlobStore, type BlobStore } from '@packyard/platform/blobs/index';
import { PublicationManifest } from '@packyard/proto/packyard/repository/v1/events';
import { TrafficAccounting } from '../accounting/traffic-accounting';
import { VerdictCache } from '../auth/token-verdicts';
import { deliveryProjection } from '../catalog/delivery.projection';
import { PublishedCatalog } from '../catalog/published-catalog';
import { PublicKeys } from '../keys/public-keys';
import { deliveryEdge } from './delivery-edge';
import { EdgeMetrics } from './edge-metrics';
import { PackageBodyCache } from './package-body-cache';

// BLOBS=s3 with S3_PRESIGN_DOWNLOADS: packages leave through a short-lived presigned URL
// of the object store (s3rver here), metadata is still answered by the edge itself.

describe('delivery edge with presigned package downloads', () => {
  const directory = mkdtempSync(join(tmpdir(), 'packyard-presign-'));
  let s3: S3rver;
  let blobs: BlobStore;
  let readModels: ReadModelStore;
  let server: Server;
  let base: string;
  const pool = randomBytes(200_000);
  const authorization = `Basic ${Buffer.from('pk_good:').toString('base64')}`;

  beforeAll(async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(directory, 's3') });
    const { port } = await s3.run();
    blobs = await createBlobStore({ kind: 's3', endPoint: '127.0.0.1', port, useSSL: false, accessKey: 'S3RVER', secretKey: 'S3RVER', bucket: `packyard-${randomUUID().slice(0, 8)}` });
    readModels = await createReadModelStore({ kind: 'sqlite', dataDir: directory, module: 'delivery' });
    const put = async (path: string, bytes: Buffer, isPackage: boolean) => {
      const info = await blobs.putContentAddressed('test', Readable.from([bytes]));
      return { path, blobKey: info.key, size: info.size, sha256: info.sha256, contentType: '', package: isPackage };
    };
    const files = [await put('dists/bookworm/InRelease', Buffer.from('signed\n'), false), await put('pool/main/h/hello/hello_1.0_all.deb', pool, true)];
    const manifest = await blobs.putContentAddressed('test', Readable.from([Buffer.from(PublicationManifest.encode({ files, repositoryFiles: [], parts: [] }).finish())]));
    const data = {
      repositoryId: 'r1', targetDistribution: { distro: 'debian', version: 'bookworm' }, generation: 1, publishedAt: new Date().toISOString(), kind: 'DEB', workspaceId: 'w1',
      workspaceSlug: 'acme', repositoryName: 'tools', retainedGenerations: [], ownerId: 'u1', packageCount: 1, inputsDigest: 'i1',
      manifest: { blobKey: manifest.key, sha256: manifest.sha256, size: manifest.size },
    };
    await deliveryProjection().handle({ id: 'e1', stream: inboxStream('repository', 'm1'), type: 'IndexPublished', data, version: 1, position: 1, recordedAt: data.publishedAt }, readModels);
    const catalog = new PublishedCatalog(readModels, blobs);
    await catalog.refresh('r1');
    const edge = deliveryEdge({
      catalog,
      verdicts: new VerdictCache(async () => ({ valid: true, kind: 'repo_token', tokenId: 't1', ownerId: 'u1', scopes: [], repositoryId: 'r1' }), { ttlMs: 4000, negativeTtlMs: 1000, maxEntries: 10 }),
      accounting: new TrafficAccounting(async () => 'p1'),
      blobs,
      publicKeys: new PublicKeys(async () => undefined, async () => ({ armored: '', binary: new Uint8Array() })),
      metrics: new EdgeMetrics(new Registry()),
      packageBodies: new PackageBodyCache((key, range) => blobs.get(key, range), 1024 * 1024, 1024 * 1024),
      logger: pino({ level: 'silent' }),
      presignDownloads: true,
    });
    server = createServer((request, response) => edge.answer(request, replyThrough(response)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/deb/acme/tools/debian`;
  });
  afterAll(async () => {
    server?.close();
    await readModels?.close();
    await blobs?.close();
    await s3?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('redirects a package download to a presigned URL that serves the bytes without the token', async () => {
    const response = await fetch(`${base}/pool/main/h/hello/hello_1.0_all.deb`, { headers: { authorization }, redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const location = response.headers.get('location')!;
    expect(location).toMatch(/X-Amz-Signature=/);
    const object = await fetch(location);
    expect(object.status).toBe(200);
    expect(Buffer.from(await object.arrayBuffer()).equals(pool)).toBe(true);
  });

  it('still answers metadata itself, and nothing without a token', async () => {
    const inRelease = await fetch(`${base}/dists/bookworm/InRelease`, { headers: { authorization } });
    expect(inRelease.status).toBe(200);
    expect(await inRelease.text()).toBe('signed\n');
    expect((await fetch(`${base}/pool/main/h/hello/hello_1.0_all.deb`, { redirect: 'manual' })).status).toBe(401);
  });
});
