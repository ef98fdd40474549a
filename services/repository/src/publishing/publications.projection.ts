import { formatDistribution } from '@packyard/formats';
import { IndexPublished } from '@packyard/formats/recorded-distributions';
import { decodeEvent, isInboxEvent, type Projection } from '@packyard/platform';

export interface PublicationGenerationDocument {
  /** `<repositoryId>|<distro/version>|<generation>` */
  id: string;
  repositoryId: string;
  /** the target as `distro/version`: what the listing sorts by */
  distribution: string;
  generation: number;
  /** as recorded: one kept before the Distribution message carries the string (read it with the IndexPublished reader) */
  publication: IndexPublished;
}

/** which generations of a distribution have a document, so older ones are dropped without reading any */
interface ReadableGenerationsDocument {
  /** `<repositoryId>|<distro/version>` */
  id: string;
  generations: number[];
}

export const PUBLICATION_GENERATIONS = 'publication_generations';
const READABLE_GENERATIONS = 'publication_readable_generations';

const generationId = (repositoryId: string, distribution: string, generation: number) => `${repositoryId}|${distribution}|${generation}`;

/** The readable generations of every distribution: the current one and those IndexPublished retains. */
export const publicationsProjection: Projection = {
  name: 'publications',
  collections: [PUBLICATION_GENERATIONS, READABLE_GENERATIONS],
  indexes: { [PUBLICATION_GENERATIONS]: ['repositoryId'] },
  async handle(recorded, readModels) {
    const event = isInboxEvent(recorded.stream) ? undefined : decodeEvent(recorded, { IndexPublished });
    if (!event) return;
    const publication = event.data;
    const { repositoryId, generation } = publication;
    // read-model ids name the target as the ones stored before the Distribution message
    const distribution = formatDistribution(publication.targetDistribution);
    const generations = readModels.collection<PublicationGenerationDocument>(PUBLICATION_GENERATIONS);
    const readable = readModels.collection<ReadableGenerationsDocument>(READABLE_GENERATIONS);
    await generations.upsert({ id: generationId(repositoryId, distribution, generation), repositoryId, distribution, generation, publication });
    const kept = [generation, ...publication.retainedGenerations];
    const before = (await readable.get(`${repositoryId}|${distribution}`))?.generations ?? [];
    for (const old of before) if (!kept.includes(old)) await generations.delete(generationId(repositoryId, distribution, old));
    await readable.upsert({ id: `${repositoryId}|${distribution}`, generations: kept });
  },
};
