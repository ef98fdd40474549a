import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, openModuleStores, recordInbox, runProjection, type ModuleStores, type Projection, type RunningProjection } from '@packyard/platform';
import { parseDistribution } from '@packyard/formats';
import type { PackageDeleted, PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';
import { PUBLISHABLE_PACKAGES, publishablePackagesProjection } from '../packages/publishable-packages.projection';
import type { PublishablePackage } from '../packages/publishable-package';
import { PackageSets } from './package-sets';
import { syntheticDeb } from './testing/publishing-rig';

/** A projection whose events each wait for the test to let them through: a replica that lags behind another. */
function heldBack(projection: Projection) {
  const gates = new Map<number, { open: () => void; opened: Promise<void> }>();
  const gate = (position: number) => {
    let entry = gates.get(position);
    if (!entry) {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gates.set(position, (entry = { open, opened }));
    }
    return entry;
  };
  return {
    projection: { ...projection, handle: async (...args: Parameters<Projection['handle']>) => (await gate(args[0].position).opened, projection.handle(...args)) },
    letThrough: (position: number) => gate(position).open(),
    /** so that the replica can stop (a stop waits for the event in hand) */
    letAllThrough: () => [...gates.values()].forEach((entry) => entry.open()),
  };
}

/** Two replicas of the repository module projecting into one store (two SQLite connections to the same files), as two processes do. */
describe('repository replicas projecting into one read-model store', () => {
  let dataDir: string;
  const replicas: ModuleStores[] = [];
  const running: RunningProjection[] = [];
  const heldBackReplicas: ReturnType<typeof heldBack>[] = [];

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-read-replicas-'));
  });
  afterEach(async () => {
    for (const replica of heldBackReplicas.splice(0)) replica.letAllThrough();
    for (const projection of running.splice(0)) await projection.stop();
    for (const stores of replicas.splice(0)) {
      await stores.events.close();
      await stores.readModels.close();
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  const replica = async () => {
    const stores = await openModuleStores(loadConfig({ DATA_DIR: dataDir }), 'repository');
    replicas.push(stores);
    return stores;
  };

  /** a package of r-shared uploaded then deleted, as the inbox records artifact's events; their log positions */
  const uploadedThenDeleted = async (stores: ModuleStores) => {
    const pkg = syntheticDeb('r-shared', 1);
    const { id: packageId, distribution, ...uploaded } = pkg;
    const uploadDistribution = parseDistribution(distribution);
    const upload = await recordInbox(stores.events, 'artifact', {
      id: randomUUID(),
      type: 'PackageUploaded',
      key: `package-${packageId}`,
      data: { ...uploaded, uploadDistribution, packageId, workspaceId: 'w', ownerId: 'o' } satisfies PackageUploaded,
    });
    const deletion = await recordInbox(stores.events, 'artifact', {
      id: randomUUID(),
      type: 'PackageDeleted',
      key: `package-${packageId}`,
      data: { packageId, repositoryId: 'r-shared', workspaceId: 'w', ownerId: 'o', uploadDistribution, sizeBytes: pkg.sizeBytes, blobKey: pkg.blobKey, deletedAt: new Date().toISOString(), reason: 'deleted' } satisfies PackageDeleted,
    });
    return { upload: upload!, deletion: deletion! };
  };

  /**
   * Two replicas on one store after an upload and its deletion: the lagging one runs the
   * projection made for it, held back before the upload; the fast one has handled both events
   */
  const oneReplicaLagging = async (projectionOf: (lagging: ModuleStores) => Projection) => {
    const [fast, lagging] = [await replica(), await replica()];
    const { upload, deletion } = await uploadedThenDeleted(fast);
    const behind = heldBack(projectionOf(lagging));
    heldBackReplicas.push(behind);
    const onLagging = await runProjection({ ...behind.projection, store: lagging.events, readModels: lagging.readModels });
    running.push(onLagging);
    const onFast = await runProjection({ ...publishablePackagesProjection(), store: fast.events, readModels: fast.readModels });
    running.push(onFast);
    await onFast.waitFor(deletion);
    return { fast, lagging, upload, deletion, behind, onLagging };
  };

  it('a replica that lags never writes an older state of a package over a newer one: uploaded then deleted stays deleted', async () => {
    // the lagging replica has started on the log but has not handled the upload yet; the other handles the upload and the deletion
    const { fast, lagging, upload, deletion, behind, onLagging } = await oneReplicaLagging(() => publishablePackagesProjection());
    const packages = (stores: ModuleStores) => stores.readModels.collection<PublishablePackage>(PUBLISHABLE_PACKAGES).find({ repositoryId: 'r-shared' });
    expect(await packages(fast)).toEqual([]);

    // the lagging replica now handles the upload, and not yet the deletion
    behind.letThrough(upload);
    await onLagging.waitFor(upload);
    // a replica reading the package set afresh (a publisher loading it) finds it as the log ends: empty
    expect(await packages(fast)).toEqual([]);
    expect(await packages(lagging)).toEqual([]);

    behind.letThrough(deletion);
    await onLagging.waitFor(deletion);
    expect(await packages(lagging)).toEqual([]);
  });

  it("a replica that lags keeps its publisher's package set as new as what it read: the upload it handles late does not bring the deleted package back", async () => {
    // the lagging replica's projection has started on the log but has not handled the upload yet
    let packageSets!: PackageSets;
    const { upload, behind, onLagging } = await oneReplicaLagging((lagging) => {
      packageSets = new PackageSets(lagging.readModels);
      return publishablePackagesProjection((change) => packageSets.apply(change));
    });

    // its publisher reads the package set (after the deletion), then its projection handles the upload
    expect(await packageSets.of('r-shared')).toEqual([]);
    behind.letThrough(upload);
    await onLagging.waitFor(upload);
    expect(await packageSets.of('r-shared')).toEqual([]);
  });
});
