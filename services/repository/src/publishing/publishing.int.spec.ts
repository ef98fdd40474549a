import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexPublished, PublicationManifest } from '@packyard/proto/packyard/repository/v1/events';
import { BUILD_CHECKPOINT } from './build-scheduler';
import { publicationStream } from './publication.events';
import { recordUploaded, seedRepository, startPublishingRig, syntheticDeb, type PublishingRig } from './testing/publishing-rig';

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

  const published = async (distribution: string): Promise<IndexPublished> => {
    const events = await rig.es.events.readStream(publicationStream(repositoryId, distribution));
    return events.filter((event) => event.type === 'IndexPublished').at(-1)!.data as IndexPublished;
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
    const files = PublicationManifest.decode(bytes).files;
    expect(files.filter((file) => file.package)).toHaveLength(PACKAGES);
    expect(files.map((file) => file.path)).toEqual(expect.arrayContaining(['dists/noble/InRelease', 'dists/noble/main/binary-amd64/Packages.xz', 'pool/main/r/rig-package-7/ubuntu/noble/rig-package-7_1.0-1_amd64.deb']));
  });

  it('keeps every event of the repository module small, whatever the package count', async () => {
    const events = await rig.es.events.readAll(0, 100_000);
    const largest = Math.max(...events.filter((event) => event.stream.startsWith('publication-')).map((event) => JSON.stringify(event.data).length));
    expect(largest).toBeLessThan(8 * 1024);
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
    expect(built).toEqual([publicationStream('r-second', 'debian/bookworm')]);
    expect(signatures).toBe(1);
    expect(await running.publisher.waitForPublication('r-second', added.id, 10_000)).toBe(true);
  });
});
