import type { ServiceImplementation } from 'nice-grpc';
import { IndexPublished } from '@packyard/formats/recorded-distributions';
import type { CallerContext, EventSourcing } from '@packyard/platform';
import type { PublishingServiceDefinition } from '@packyard/proto/packyard/repository/v1/publishing';
import { PUBLICATION_GENERATIONS, type PublicationGenerationDocument } from './publications.projection';
import type { Publisher } from './publisher';

const MAX_WAIT_MS = 30_000;

/**
 * Publications are not secret per caller: the package id to wait for comes from an upload
 * the gateway just authorised, and the listing serves delivery (a module) on cold start.
 */
export function publishingHandlers(es: EventSourcing, publisher: Publisher): ServiceImplementation<typeof PublishingServiceDefinition, CallerContext> {
  const generations = es.readModels.collection<PublicationGenerationDocument>(PUBLICATION_GENERATIONS);
  return {
    async waitForPublication(request) {
      const timeoutMs = Math.min(Math.max(request.timeoutMs, 0), MAX_WAIT_MS);
      const published = await publisher.waitForPublication(request.repositoryId, request.packageId, timeoutMs);
      return { published, generations: published ? publisher.generationsOf(request.repositoryId) : [] };
    },

    async listPublications(request) {
      const docs = await generations.find({ repositoryId: request.repositoryId }, { sort: { field: 'generation', direction: -1 } });
      const ordered = docs.sort((a, b) => a.distribution.localeCompare(b.distribution) || b.generation - a.generation);
      return { publications: ordered.map((doc) => IndexPublished.fromJSON(doc.publication)) };
    },
  };
}
