import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexPublished, PublicationManifest } from '@packyard/proto/packyard/repository/v1/events';
import { publicationStream } from './publication.events';
import { seedRepository, startPublishingRig, syntheticDeb, type PublishingRig } from './testing/publishing-rig';

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
