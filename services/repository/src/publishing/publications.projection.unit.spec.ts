import { describe, expect, it } from 'vitest';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { publicationsProjection } from './publications.projection';

const published = (generation: number, retainedGenerations: number[]) => ({
  type: 'IndexPublished',
  stream: 'publication-r1_ubuntu_noble',
  data: {
    repositoryId: 'r1', distribution: 'ubuntu/noble', generation, publishedAt: 't', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme',
    repositoryName: 'apt', distro: 'ubuntu', version: 'noble', retainedGenerations, ownerId: 'u1', packageCount: 0, inputsDigest: 'd',
    manifest: { blobKey: `indices/r1/m${generation}`, sha256: `m${generation}`, size: 1 },
  },
});

describe('publications projection', () => {
  it('keeps the current generation and the three it retains, and drops the rest', async () => {
    await projectionSpec(publicationsProjection)
      .given([published(1, []), published(2, [1]), published(3, [2, 1]), published(4, [3, 2, 1])])
      .when([published(5, [4, 3, 2])])
      .then(async (readModels) => {
        const docs = await readModels.collection<{ id: string; generation: number }>('publication_generations').find({ repositoryId: 'r1' });
        expect(docs.map((doc) => doc.generation).sort()).toEqual([2, 3, 4, 5]);
      });
  });
});
