import { describe, expect, it } from 'vitest';
import { IndexPublished } from '@packyard/formats/recorded-distributions';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { publicationsProjection, type PublicationGenerationDocument } from './publications.projection';

const published = (generation: number, retainedGenerations: number[]) => ({
  type: 'IndexPublished',
  stream: 'publication-r1_ubuntu_noble',
  data: {
    repositoryId: 'r1', targetDistribution: { distro: 'ubuntu', version: 'noble' }, generation, publishedAt: 't', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme',
    repositoryName: 'apt', retainedGenerations, ownerId: 'u1', packageCount: 0, inputsDigest: 'd',
    manifest: { blobKey: `indices/r1/m${generation}`, sha256: `m${generation}`, size: 1 },
  },
});

/** as an IndexPublished recorded before the Distribution message is stored: the target as a string, and flat */
const publishedBefore = (generation: number, retainedGenerations: number[]) => {
  const { targetDistribution: _, ...data } = published(generation, retainedGenerations).data;
  return { ...published(generation, retainedGenerations), data: { ...data, distribution: 'ubuntu/noble', distro: 'ubuntu', version: 'noble' } };
};

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

  it('takes generations recorded before the Distribution message as the same target, and lists them with it', async () => {
    await projectionSpec(publicationsProjection)
      .given([publishedBefore(1, []), publishedBefore(2, [1])])
      .when([published(3, [2, 1])])
      .then(async (readModels) => {
        const docs = await readModels.collection<PublicationGenerationDocument>('publication_generations').find({ repositoryId: 'r1' });
        expect(docs.map((doc) => doc.id).sort()).toEqual(['r1|ubuntu/noble|1', 'r1|ubuntu/noble|2', 'r1|ubuntu/noble|3']);
        // a document kept before the message holds the event as it was; the listing reads it with the same reader
        expect(IndexPublished.fromJSON(publishedBefore(1, []).data).targetDistribution).toEqual({ distro: 'ubuntu', version: 'noble' });
      });
  });
});
