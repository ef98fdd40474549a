import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedRepository, startPublishingRig, syntheticDeb, type PublishingRig } from './testing/publishing-rig';

describe('a start that finds many repositories to build', () => {
  let dataDir: string;
  let rig: PublishingRig;
  afterAll(async () => {
    await rig?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('builds a few repositories at a time, not all at once, and publishes every one', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-publisher-'));
    rig = await startPublishingRig(dataDir, { maxBuilds: 2 });
    const repositories = Array.from({ length: 6 }, () => randomUUID());
    for (const [index, repositoryId] of repositories.entries()) {
      await rig.registerSharedKey(repositoryId);
      await seedRepository(rig.es, { id: repositoryId, kind: 'DEB', name: `at-once-${index}` }, [syntheticDeb(repositoryId, 0)]);
    }
    await rig.publisher.start();
    await rig.publisher.settled();
    for (const repositoryId of repositories) expect(await rig.publisher.waitForPublication(repositoryId, `${repositoryId}-p0`, 1_000)).toBe(true);
    expect(rig.mostRepositoriesSigningAtOnce()).toBe(2);
  }, 240_000);
});
