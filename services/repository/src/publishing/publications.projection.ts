import type { Projection } from '@packyard/platform';
import type { IndexPublished } from '@packyard/proto/packyard/repository/v1/events';

export interface PublicationGenerationDocument {
  /** `<repositoryId>|<distro/version>|<generation>` */
  id: string;
  repositoryId: string;
  distribution: string;
  generation: number;
  publication: IndexPublished;
}

export const PUBLICATION_GENERATIONS = 'publication_generations';

/** The readable generations of every distribution: the current one and those IndexPublished retains. */
export const publicationsProjection: Projection = {
  name: 'publications',
  collections: [PUBLICATION_GENERATIONS],
  async handle(event, readModels) {
    if (event.type !== 'IndexPublished') return;
    const publication = event.data as IndexPublished;
    const generations = readModels.collection<PublicationGenerationDocument>(PUBLICATION_GENERATIONS);
    const { repositoryId, distribution, generation } = publication;
    await generations.upsert({ id: `${repositoryId}|${distribution}|${generation}`, repositoryId, distribution, generation, publication });
    const kept = new Set([generation, ...publication.retainedGenerations]);
    for (const doc of await generations.find({ repositoryId, distribution })) if (!kept.has(doc.generation)) await generations.delete(doc.id);
  },
};
