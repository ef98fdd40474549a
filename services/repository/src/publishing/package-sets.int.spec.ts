import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, openModuleStores, type ModuleStores } from '@packyard/platform';
import { PUBLISHABLE_PACKAGES } from '../packages/publishable-packages.projection';
import type { PublishablePackage } from '../packages/publishable-package';
import { PackageSets } from './package-sets';
import { syntheticDeb } from './testing/publishing-rig';

describe('package sets in memory', () => {
  let dataDir: string;
  let stores: ModuleStores;
  afterEach(async () => {
    await stores?.events.close();
    await stores?.readModels.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the sets of the repositories used last only, and reads a dropped one again whole', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-package-sets-'));
    stores = await openModuleStores(loadConfig({ DATA_DIR: dataDir }), 'repository');
    const collection = stores.readModels.collection<PublishablePackage>(PUBLISHABLE_PACKAGES);
    for (const repositoryId of ['a', 'b']) await collection.upsert(syntheticDeb(repositoryId, 0));
    const sets = new PackageSets(stores.readModels, 1);
    expect((await sets.of('a')).map((pkg) => pkg.id)).toEqual(['a-p0']);
    // written straight to the read model, as a change the projection made while the set was not in memory
    await collection.upsert(syntheticDeb('a', 1));
    await sets.of('b');
    // b pushed a out: its set is read again, with what the read model holds now
    expect((await sets.of('a')).map((pkg) => pkg.id).sort()).toEqual(['a-p0', 'a-p1']);
  });

  it('keeps following the projection for a set in memory', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-package-sets-'));
    stores = await openModuleStores(loadConfig({ DATA_DIR: dataDir }), 'repository');
    await stores.readModels.collection<PublishablePackage>(PUBLISHABLE_PACKAGES).upsert(syntheticDeb('a', 0));
    const sets = new PackageSets(stores.readModels, 1);
    await sets.of('a');
    sets.apply({ kind: 'stored', pkg: syntheticDeb('a', 1) });
    expect((await sets.of('a')).map((pkg) => pkg.id).sort()).toEqual(['a-p0', 'a-p1']);
  });
});
