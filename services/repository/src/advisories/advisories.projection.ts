import type { Projection } from '@packyard/platform';
import type { Advisory } from '@packyard/proto/packyard/repository/v1/advisories';
import type { RepositoryDeleted } from '@packyard/proto/packyard/repository/v1/events';
import type { AdvisoriesEvent } from './advisory.events';

export interface AdvisoryDocument {
  /** `<repositoryId>/<advisory id>`: advisory ids are unique per repository only */
  id: string;
  repositoryId: string;
  issuedAt: string;
  advisory: Advisory;
}

export const ADVISORIES = 'advisories';
export const advisoryDocumentId = (repositoryId: string, advisoryId: string) => `${repositoryId}/${advisoryId}`;

/** The advisories of every repository: what the API lists and what the publisher loads at start. */
export const advisoriesProjection: Projection = {
  name: 'advisories',
  collections: [ADVISORIES],
  async handle(event, readModels) {
    const advisories = readModels.collection<AdvisoryDocument>(ADVISORIES);
    if (event.type === 'RepositoryDeleted') {
      await advisories.deleteMany({ repositoryId: (event.data as RepositoryDeleted).repositoryId });
      return;
    }
    const advisoryEvent = { type: event.type, data: event.data } as AdvisoriesEvent;
    switch (advisoryEvent.type) {
      case 'AdvisoryCreated': {
        const advisory = advisoryEvent.data.advisory!;
        await advisories.upsert({ id: advisoryDocumentId(advisory.repositoryId, advisory.id), repositoryId: advisory.repositoryId, issuedAt: advisory.issuedAt, advisory });
        return;
      }
      case 'AdvisoryDeleted':
        await advisories.delete(advisoryDocumentId(advisoryEvent.data.repositoryId, advisoryEvent.data.advisoryId));
        return;
    }
  },
};
