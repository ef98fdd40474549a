import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelStore, inboxStream, type ReadModelStore } from '@packyard/platform';
import { FsBlobStore } from '@packyard/platform/blobs/index';
import { PublicationManifest, type IndexFile } from '@packyard/proto/packyard/repository/v1/events';
import { deliveryProjection, type CatalogChange } from './delivery.projection';
import { PublishedCatalog, type ServedRepository } from './published-catalog';

// The catalogue on a real read model (SQLite) and blob store: nothing is read until a
// repository is asked for, then it is answered from memory; changes reach loaded ones.

describe('the published catalogue', () => {
  let dir: string;
  let blobs: FsBlobStore;
  let readModels: ReadModelStore;
  let position = 0;
  const blobReads: string[] = [];
  const reader = { getBytes: (key: string) => (blobReads.push(key), blobs.getBytes(key)) };

  const project = async (catalog: PublishedCatalog | undefined, type: string, data: unknown) => {
    position += 1;
    const changes: CatalogChange[] = [];
    await deliveryProjection((change) => void changes.push(change)).handle(
      { id: `e${position}`, stream: inboxStream('repository', `m${position}`), type, data, version: 1, position, recordedAt: new Date().toISOString() },
      readModels,
    );
    for (const change of changes) if (change.kind === 'repository') await catalog?.refresh(change.repositoryId);
  };

  /** a repository `tools-<n>` of workspace acme with one DEB generation (of debian/`version`, published at minute `generation + minutes`) listing `inRelease` */
  const publish = async (catalog: PublishedCatalog | undefined, n: number, generation: number, inRelease: string, { version = 'bookworm', minutes = 0, retainedGenerations = [] as number[] } = {}) => {
    const file = await blobs.putContentAddressed('test', Readable.from([Buffer.from(inRelease)]));
    const files: IndexFile[] = [
      { path: `dists/${version}/InRelease`, blobKey: file.key, size: file.size, sha256: file.sha256, contentType: '', package: false },
      { path: `dists/${version}/by-hash/SHA256/${file.sha256}`, blobKey: file.key, size: file.size, sha256: file.sha256, contentType: '', package: false },
    ];
    const manifest = await blobs.putContentAddressed('test', Readable.from([Buffer.from(PublicationManifest.encode({ files, repositoryFiles: [], parts: [] }).finish())]));
    await project(catalog, 'IndexPublished', {
      repositoryId: `r${n}`, targetDistribution: { distro: 'debian', version }, generation, publishedAt: new Date(Date.UTC(2024, 2, 5, 10, generation + minutes)).toISOString(),
      kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme', repositoryName: `tools-${n}`,
      manifest: { blobKey: manifest.key, sha256: manifest.sha256, size: manifest.size }, packageCount: 0, inputsDigest: `d${generation}`, retainedGenerations, ownerId: 'u1',
    });
    return file.sha256;
  };

  const inReleaseOf = (served: ServedRepository | undefined, n: number) => served?.files.get(`/deb/acme/tools-${n}/debian/dists/bookworm/InRelease`)?.sha256;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'packyard-catalog-'));
    blobs = new FsBlobStore(join(dir, 'blobs'));
    readModels = await createReadModelStore({ kind: 'sqlite', dataDir: dir, module: 'delivery' });
    for (let n = 1; n <= 3; n++) await publish(undefined, n, 1, `generation 1 of ${n}`);
  });

  afterAll(async () => {
    await readModels?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reads nothing until a repository is asked for, then loads that one (one manifest read) and answers it from memory', async () => {
    blobReads.length = 0;
    const catalog = new PublishedCatalog(readModels, reader);
    expect(blobReads).toEqual([]);
    const first = catalog.repositoryAt('/deb/acme/tools-2/debian/dists/bookworm/InRelease');
    expect(first).toBeInstanceOf(Promise);
    const loaded = await first;
    expect(loaded?.record.name).toBe('tools-2');
    expect(blobReads).toHaveLength(1);
    const again = catalog.repositoryAt('/deb/acme/tools-2/debian/dists/bookworm/Release');
    expect(again).toBe(loaded);
    expect(blobReads).toHaveLength(1);
  });

  it('looks a repository up once for a burst of first requests', async () => {
    blobReads.length = 0;
    const catalog = new PublishedCatalog(readModels, reader);
    const burst = Array.from({ length: 20 }, (_, i) => catalog.repositoryAt(`/deb/acme/tools-1/debian/dists/bookworm/f${i}`));
    expect(new Set(burst).size).toBe(1);
    const loaded = await Promise.all(burst);
    expect(new Set(loaded).size).toBe(1);
    expect(blobReads).toHaveLength(1);
  });

  it('answers a path of no repository as unknown, and finds the repository once the projection brings it', async () => {
    const catalog = new PublishedCatalog(readModels, reader);
    expect(await catalog.repositoryAt('/deb/acme/tools-9/debian/dists/bookworm/InRelease')).toBeUndefined();
    expect(catalog.repositoryAt('/deb/acme/tools-9/debian/dists/bookworm/InRelease')).toBeUndefined();
    const sha = await publish(catalog, 9, 1, 'generation 1 of 9');
    expect(inReleaseOf(await catalog.repositoryAt('/deb/acme/tools-9/debian/dists/bookworm/InRelease'), 9)).toBe(sha);
  });

  it('rebuilds a loaded repository when a new generation is published, and waits for a generation it does not serve yet', async () => {
    const catalog = new PublishedCatalog(readModels, reader);
    expect(await catalog.waitForGenerations('r3', new Map([['debian/bookworm', 1]]), 1_000)).toBe(true);
    const waiting = catalog.waitForGenerations('r3', new Map([['debian/bookworm', 2]]), 10_000);
    const sha = await publish(catalog, 3, 2, 'generation 2 of 3');
    expect(await waiting).toBe(true);
    expect(inReleaseOf(await catalog.repositoryAt('/deb/acme/tools-3/debian/dists/bookworm/InRelease'), 3)).toBe(sha);
  });

  it('without files (a process whose edge workers answer the port) follows the generations and stocked distributions and reads no manifest', async () => {
    blobReads.length = 0;
    const catalog = new PublishedCatalog(readModels, reader, { files: false });
    await publish(catalog, 4, 1, 'generation 1 of 4');
    const waiting = catalog.waitForGenerations('r4', new Map([['debian/bookworm', 2]]), 10_000);
    await publish(catalog, 4, 2, 'generation 2 of 4');
    expect(await waiting).toBe(true);
    expect(blobReads).toEqual([]);
    expect((await catalog.load('r4'))?.files.size).toBe(0);
    expect((await catalog.load('r4'))?.generations.get('debian/bookworm')).toBe(2);
  });

  it('answers a wait that began before the repository reached this replica, once it is published', async () => {
    const catalog = new PublishedCatalog(readModels, reader);
    const waiting = catalog.waitForGenerations('r5', new Map([['debian/bookworm', 1]]), 10_000);
    await publish(catalog, 5, 1, 'generation 1 of 5');
    expect(await waiting).toBe(true);
  });

  it('loads a repository with the distribution published last, and another one at the first request below it that misses', async () => {
    await publish(undefined, 6, 1, 'bookworm of 6');
    const bullseye = await publish(undefined, 6, 1, 'bullseye of 6', { version: 'bullseye', minutes: 1 });
    const bookworm = await publish(undefined, 6, 2, 'bookworm 2 of 6', { minutes: -2 });
    blobReads.length = 0;
    const catalog = new PublishedCatalog(readModels, reader);
    const path = (version: string) => `/deb/acme/tools-6/debian/dists/${version}/InRelease`;
    const loaded = await catalog.repositoryAt(path('bookworm'));
    expect(loaded?.files.get(path('bullseye'))?.sha256).toBe(bullseye);
    expect(loaded?.files.get(path('bookworm'))).toBeUndefined();
    expect(blobReads).toHaveLength(1);
    const caughtUp = await catalog.catchUp('r6', path('bookworm'));
    expect(caughtUp?.files.get(path('bookworm'))?.sha256).toBe(bookworm);
    expect(caughtUp?.files.get(path('bullseye'))?.sha256).toBe(bullseye);
    // bookworm's newest generation (it retains none here), read once
    expect(blobReads).toHaveLength(2);
    expect(catalog.repositoryAt(path('bookworm'))).toBe(caughtUp);
  });

  it('loads the newest generation of a distribution first, and its retained ones at the first request for a file only they have', async () => {
    const byHash = [];
    for (let generation = 1; generation <= 4; generation++) {
      byHash.push(await publish(undefined, 7, generation, `generation ${generation} of 7`, { retainedGenerations: [generation - 1, generation - 2, generation - 3].filter((g) => g > 0) }));
    }
    blobReads.length = 0;
    const catalog = new PublishedCatalog(readModels, reader);
    const path = (sha256: string) => `/deb/acme/tools-7/debian/dists/bookworm/by-hash/SHA256/${sha256}`;
    const loaded = await catalog.repositoryAt(path(byHash[3]));
    expect(loaded?.files.get(path(byHash[3]))?.sha256).toBe(byHash[3]);
    expect(loaded?.files.get(path(byHash[0]))).toBeUndefined();
    expect(blobReads).toHaveLength(1);
    const caughtUp = await catalog.catchUp('r7', path(byHash[0]));
    for (const sha256 of byHash) expect(caughtUp?.files.get(path(sha256))?.sha256).toBe(sha256);
    expect(blobReads).toHaveLength(4);
    // a file no generation has: the records are read again, no manifest
    expect((await catalog.catchUp('r7', path('0'.repeat(64))))?.files.get(path('0'.repeat(64)))).toBeUndefined();
    expect(blobReads).toHaveLength(4);
  });

  it('keeps at most its bound of files, dropping the repository asked for least recently, and loads it again when asked', async () => {
    const catalog = new PublishedCatalog(readModels, reader, { maxLoadedFiles: 4 });
    const path = (n: number) => `/deb/acme/tools-${n}/debian/dists/bookworm/InRelease`;
    await catalog.repositoryAt(path(1));
    await catalog.repositoryAt(path(2));
    catalog.repositoryAt(path(1));
    await catalog.repositoryAt(path(3));
    expect(catalog.repositoryAt(path(1))).not.toBeInstanceOf(Promise);
    expect(catalog.repositoryAt(path(3))).not.toBeInstanceOf(Promise);
    const reloaded = catalog.repositoryAt(path(2));
    expect(reloaded).toBeInstanceOf(Promise);
    expect((await reloaded)?.record.name).toBe('tools-2');
    expect(catalog.counts).toEqual({ loads: 4, evictions: 2 });
    expect(catalog.filesHeld).toBe(4);
  });
});
