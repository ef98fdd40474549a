import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { parseDistribution } from '@packyard/formats';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEvent, recordInbox, type RecordedEvent } from '@packyard/platform';
import { IndexPublished, PublicationManifest } from '@packyard/proto/packyard/repository/v1/events';
import { manifestFiles } from '@packyard/testing/publication-manifest';
import { BUILD_CHECKPOINT } from './build-scheduler';
import { publicationStream } from './publication.events';
import { PUBLISHABLE_PACKAGES } from '../packages/publishable-packages.projection';
import { indexBlobPrefix } from './generation.workflow';
import { recordOwn, recordUploaded, RIG_REPOSITORIES_STREAM, seedRepository, startPublishingRig, syntheticDeb, type PublishingRig } from './testing/publishing-rig';

const lastPublished = (events: RecordedEvent[]): IndexPublished => events.flatMap((event) => decodeEvent(event, { IndexPublished }) ?? []).at(-1)!.data;

const PACKAGES = 2_000;

describe('publishing a distribution of many packages', () => {
  let dataDir: string;
  let rig: PublishingRig;
  const repositoryId = 'r-many';

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-publishing-'));
    rig = await startPublishingRig(dataDir);
    const packages = Array.from({ length: PACKAGES }, (_, index) => syntheticDeb(repositoryId, index));
    await seedRepository(rig.es, { id: repositoryId, kind: 'DEB', name: 'many' }, packages);
    await rig.publisher.start();
    expect(await rig.publisher.waitForPublication(repositoryId, packages[0].id, 120_000)).toBe(true);
  }, 180_000);

  afterAll(async () => {
    await rig?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const read = async (blobKey: string) => buffer(await rig.blobs.get(blobKey));
  const published = async (distribution: string): Promise<IndexPublished> => {
    const events = await rig.es.events.readStream(publicationStream(repositoryId, parseDistribution(distribution)));
    return lastPublished(events);
  };

  it('keeps IndexPublished as small as for an empty distribution: it names the manifest, which lists the files', async () => {
    const full = await published('ubuntu/noble');
    const empty = await published('ubuntu/jammy');
    expect(full.packageCount).toBe(PACKAGES);
    expect(empty.packageCount).toBe(0);
    // what the outbox stores and the bus carries (JSON), and the protobuf encoding
    for (const size of [(event: IndexPublished) => JSON.stringify(event).length, (event: IndexPublished) => IndexPublished.encode(event).finish().length]) {
      expect(size(full)).toBeLessThan(1024);
      expect(size(full)).toBeLessThanOrEqual(size(empty) + 16);
    }

    const bytes = await buffer(await rig.blobs.get(full.manifest!.blobKey));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(full.manifest!.sha256);
    const { files, parts } = await manifestFiles(read, full.manifest!);
    // the pool entries in parts of about 1,000: the manifest itself names them, and is hardly larger than an empty distribution's
    expect(parts).toBeGreaterThan(1);
    expect(bytes.length).toBeLessThan((await read(empty.manifest!.blobKey)).length + 1024);
    expect(files.filter((file) => file.package)).toHaveLength(PACKAGES);
    expect(files.map((file) => file.path)).toEqual(expect.arrayContaining(['dists/noble/InRelease', 'dists/noble/main/binary-amd64/Packages.gz', 'pool/main/r/rig-package-7/ubuntu/noble/rig-package-7_1.0-1_amd64.deb']));
  });

  it('keeps every event of the repository module small, whatever the package count', async () => {
    const events = await rig.es.events.readAll(0, 100_000);
    const largest = Math.max(...events.filter((event) => event.stream.startsWith('publication-')).map((event) => JSON.stringify(event.data).length));
    // IndexBuilt lists the distribution's index files (Packages and Sources of every component,
    // ~9 KB since Sources): bounded by the layout, where 2,000 packages listed would be ~400 KB
    expect(largest).toBeLessThan(16 * 1024);
  });

  it('writes the manifest of the next build as protobuf encodes it, listing the new package in a new part and naming the others as they were', async () => {
    const before = (await published('ubuntu/noble')).manifest!;
    const added = syntheticDeb(repositoryId, PACKAGES);
    await recordUploaded(rig.es, added);
    expect(await rig.publisher.waitForPublication(repositoryId, added.id, 60_000)).toBe(true);
    const after = (await published('ubuntu/noble')).manifest!;
    const bytes = await read(after.blobKey);
    expect(Buffer.from(PublicationManifest.encode(PublicationManifest.decode(bytes)).finish())).toEqual(bytes);
    const partsBefore = PublicationManifest.decode(await read(before.blobKey)).parts.map((part) => part.sha256);
    const partsAfter = PublicationManifest.decode(bytes).parts.map((part) => part.sha256);
    expect(partsAfter.filter((part) => !partsBefore.includes(part))).toHaveLength(1);
    expect(partsBefore.filter((part) => !partsAfter.includes(part))).toHaveLength(1);
    const manifest = await manifestFiles(read, after);
    expect(manifest.files.filter((file) => file.package)).toHaveLength(PACKAGES + 1);
    expect(manifest.files.map((file) => file.path)).toContain(`pool/main/r/rig-package-${PACKAGES}/ubuntu/noble/rig-package-${PACKAGES}_1.0-1_amd64.deb`);
    expect(manifest.repositoryFiles.map((file) => file.path).sort()).toEqual(['gpg.key', 'keyring.gpg']);
  });
});

describe('a restart of publishing', () => {
  let dataDir: string;
  let rig: PublishingRig | undefined;
  const repositories = ['r-first', 'r-second'];
  const packages = repositories.map((repositoryId) => Array.from({ length: 20 }, (_, index) => syntheticDeb(repositoryId, index)));

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-publishing-restart-'));
    rig = await startPublishingRig(dataDir);
    for (const [index, repositoryId] of repositories.entries()) await seedRepository(rig.es, { id: repositoryId, kind: 'DEB', name: `restart-${index}` }, packages[index]);
    await rig.publisher.start();
    await rig.publisher.settled();
    await rig.stop();
    rig = undefined;
  }, 180_000);

  afterAll(async () => {
    await rig?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** the publication events recorded so far, by type */
  const publicationEvents = async (events: PublishingRig['es']['events']) =>
    (await events.readAll(0, 1_000_000)).filter((event) => event.stream.startsWith('publication-')).map((event) => ({ type: event.type, stream: event.stream }));

  /** starts publishing again on the same data, lets it do what a start does, and tells what it built and signed */
  const restart = async (beforeStart: (rig: PublishingRig) => Promise<unknown> = async () => undefined) => {
    rig = await startPublishingRig(dataDir);
    const before = await publicationEvents(rig.es.events);
    await beforeStart(rig);
    await rig.publisher.start();
    await rig.publisher.settled();
    const added = (await publicationEvents(rig.es.events)).slice(before.length);
    const outcome = { built: added.filter((event) => event.type === 'IndexBuilt').map((event) => event.stream), signatures: rig.signatures(), rig };
    return outcome;
  };

  it('builds and signs nothing when nothing changed, and still answers a wait for a package published before', async () => {
    const { built, signatures, rig: running } = await restart();
    expect({ built, signatures }).toEqual({ built: [], signatures: 0 });
    expect(await running.publisher.waitForPublication('r-first', packages[0][3].id, 10_000)).toBe(true);
    await running.stop();
    rig = undefined;
  });

  it('builds and signs nothing when the checkpoint was lost (a kill -9 before it was saved): the current generations have the same inputs', async () => {
    const { built, signatures } = await restart((running) => running.es.readModels.setCheckpoint(BUILD_CHECKPOINT, 0));
    expect({ built, signatures }).toEqual({ built: [], signatures: 0 });
    await rig!.stop();
    rig = undefined;
  });

  it('builds only the distributions of the repository whose packages changed while it was down', async () => {
    const added = syntheticDeb('r-second', 99, 'debian/bookworm');
    const { built, signatures, rig: running } = await restart(({ es }) => recordUploaded(es, added));
    expect(built).toEqual([publicationStream('r-second', { distro: 'debian', version: 'bookworm' })]);
    expect(signatures).toBe(1);
    expect(await running.publisher.waitForPublication('r-second', added.id, 10_000)).toBe(true);
  });
});

describe('publishing what else a repository is made of', () => {
  let dataDir: string;
  let rig: PublishingRig;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-publishing-more-'));
    rig = await startPublishingRig(dataDir);
    await rig.publisher.start();
  }, 60_000);

  afterAll(async () => {
    await rig?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** what the next changes make the publisher build (publication streams) and sign */
  const afterChanges = async (changes: () => Promise<void>) => {
    await rig.publisher.settled();
    const count = async () => (await rig.es.events.readAll(0, 1_000_000)).filter((event) => event.type === 'IndexBuilt').map((event) => event.stream);
    const before = await count();
    const signaturesBefore = rig.signatures();
    await changes();
    await rig.publisher.settled();
    return { built: (await count()).slice(before.length), signatures: rig.signatures() - signaturesBefore };
  };

  const read = async (blobKey: string) => buffer(await rig.blobs.get(blobKey));
  const manifestEntries = async (repositoryId: string, distribution: string) => {
    const events = await rig.es.events.readStream(publicationStream(repositoryId, parseDistribution(distribution)));
    return (await manifestFiles(read, lastPublished(events).manifest!)).files;
  };
  const manifestPaths = async (repositoryId: string, distribution: string) => (await manifestEntries(repositoryId, distribution)).map((file) => file.path);

  const indexBlobs = async (repositoryId: string) => {
    const keys: string[] = [];
    for await (const key of rig.blobs.list(`${indexBlobPrefix(repositoryId)}/`)) keys.push(key);
    return keys;
  };

  it('rebuilds only the distributions an advisory applies to when it is created or deleted, with updateinfo.xml, and signs only the repomd.xml that changed until the keys change', async () => {
    const repositoryId = 'r-advisories';
    await afterChanges(() => seedRepository(rig.es, { id: repositoryId, kind: 'RPM', name: 'advisories' }, []));
    const sourceRepomd = async () => {
      const files = new Map((await manifestEntries(repositoryId, 'el/9')).map((file) => [file.path, file.blobKey]));
      return [files.get('SRPMS/repodata/repomd.xml'), files.get('SRPMS/repodata/repomd.xml.asc')];
    };
    const sourcesBefore = await sourceRepomd();
    const advisory = {
      id: 'PKY-2026-1', repositoryId, type: 'security', severity: 'Important', title: 'fix', description: 'a fix', issuedAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z', references: [], packages: [{ name: 'hello', epoch: 0, version: '2', release: '1', arch: 'noarch', distribution: 'el/9' }],
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    // a second later: a repomd.xml built again would carry another revision
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const created = await afterChanges(() => recordOwn(rig.es, `advisories-${repositoryId}`, 'AdvisoryCreated', { advisory }));
    // repodata/repomd.xml; the source packages' SRPMS/repodata/repomd.xml lists the same files and keeps its bytes and signature
    expect(created).toEqual({ built: [publicationStream(repositoryId, { distro: 'el', version: '9' })], signatures: 1 });
    const paths = await manifestPaths(repositoryId, 'el/9');
    expect(paths.some((path) => /^repodata\/[0-9a-f]+-updateinfo\.xml\.gz$/.test(path))).toBe(true);
    expect(paths).toEqual(expect.arrayContaining(['repodata/repomd.xml.asc', 'SRPMS/repodata/repomd.xml', 'SRPMS/repodata/repomd.xml.asc']));
    expect(await sourceRepomd()).toEqual(sourcesBefore);
    expect((await manifestPaths(repositoryId, 'el/8')).some((path) => path.includes('updateinfo'))).toBe(false);

    const deleted = await afterChanges(() => recordOwn(rig.es, `advisories-${repositoryId}`, 'AdvisoryDeleted', { repositoryId, advisoryId: advisory.id, deletedAt: new Date().toISOString() }));
    expect(deleted).toEqual({ built: [publicationStream(repositoryId, { distro: 'el', version: '9' })], signatures: 1 });
    expect((await manifestPaths(repositoryId, 'el/9')).some((path) => path.includes('updateinfo'))).toBe(false);

    // a key change signs every repomd.xml of every distribution anew, the unchanged ones too
    const keysChanged = await afterChanges(() =>
      recordInbox(rig.es.events, 'signing', { id: randomUUID(), type: 'SigningKeysChanged', key: repositoryId, data: { repositoryId, signingFingerprints: [], changedAt: new Date().toISOString() } }).then(() => undefined),
    );
    expect(keysChanged.built).toContain(publicationStream(repositoryId, { distro: 'el', version: '9' }));
    expect(keysChanged.signatures).toBe(2 * keysChanged.built.length);
    const [repomd, signature] = await sourceRepomd();
    expect(repomd).toBe(sourcesBefore[0]);
    expect(signature).not.toBe(sourcesBefore[1]);
  });

  it('builds nothing for a deleted repository and keeps its indices, signs them anew once restored, and drops them at its purge', async () => {
    const repositoryId = 'r-deleted';
    const packages = Array.from({ length: 3 }, (_, index) => syntheticDeb(repositoryId, index));
    await afterChanges(() => seedRepository(rig.es, { id: repositoryId, kind: 'DEB', name: 'deleted' }, packages));
    const ids = { repositoryId, workspaceId: 'rig-workspace', ownerId: 'rig-owner' };
    const published = await indexBlobs(repositoryId);
    expect(published.length).toBeGreaterThan(0);

    const now = new Date().toISOString();
    const whileDeleted = await afterChanges(async () => {
      await recordOwn(rig.es, RIG_REPOSITORIES_STREAM, 'RepositoryDeleted', { ...ids, deletedAt: now, purgeAt: new Date(Date.now() + 3_600_000).toISOString(), withWorkspace: false });
      await recordUploaded(rig.es, syntheticDeb(repositoryId, 9));
    });
    expect(whileDeleted).toEqual({ built: [], signatures: 0 });
    expect(await indexBlobs(repositoryId)).toEqual(published);

    const restored = await afterChanges(() => recordOwn(rig.es, RIG_REPOSITORIES_STREAM, 'RepositoryRestored', { ...ids, restoredAt: now }));
    expect(restored.built).toContain(publicationStream(repositoryId, { distro: 'ubuntu', version: 'noble' }));
    expect(await rig.publisher.waitForPublication(repositoryId, `${repositoryId}-p9`, 10_000)).toBe(true);

    await afterChanges(async () => {
      await recordOwn(rig.es, RIG_REPOSITORIES_STREAM, 'RepositoryDeleted', { ...ids, deletedAt: now, purgeAt: now, withWorkspace: false });
      await recordOwn(rig.es, RIG_REPOSITORIES_STREAM, 'RepositoryPurged', { ...ids, purgedAt: now });
    });
    // the cleanup is a reaction of its own: wait for it, not for a fixed time
    await expect.poll(() => indexBlobs(repositoryId), { timeout: 30_000, interval: 200 }).toEqual([]);
    expect(await rig.es.readModels.collection(PUBLISHABLE_PACKAGES).find({ repositoryId })).toEqual([]);
  });
});
