import type { ServiceImplementation } from 'nice-grpc';
import type { CallerContext, EventSourcing } from '@packyard/platform';
import type { PublishingServiceDefinition } from '@packyard/proto/packyard/repository/v1/publishing';
import { PUBLICATION_GENERATIONS, type PublicationGenerationDocument } from './publications.projection';

/** Publications are not secret per caller: the listing serves delivery (a module) on cold start. */
export function publishingHandlers(es: EventSourcing): ServiceImplementation<typeof PublishingServiceDefinition, CallerContext> {
  const generations = es.readModels.collection<PublicationGenerationDocument>(PUBLICATION_GENERATIONS);
  return {
    async listPublications(request) {
      const docs = await generations.find({ repositoryId: request.repositoryId }, { sort: { field: 'generation', direction: -1 } });
      const ordered = docs.sort((a, b) => a.distribution.localeCompare(b.distribution) || b.generation - a.generation);
      return { publications: ordered.map((doc) => doc.publication) };
    },
  };
}
