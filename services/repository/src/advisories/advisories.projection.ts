import type { Projection } from '@packyard/platform';
import type { Advisory } from '@packyard/proto/packyard/repository/v1/advisories';
import { followedEvent, purgedRepositoryId } from '../publishing/followed-events';

export interface AdvisoryDocument {
  /** `<repositoryId>/<advisory id>`: advisory ids are unique per repository only */
  id: string;
  repositoryId: string;
  issuedAt: string;
  /** as recorded; one kept before the Distribution message holds the strings: read it with recorded-distributions' Advisory */
  advisory: Advisory;
}

export const ADVISORIES = 'advisories';
export const advisoryDocumentId = (repositoryId: string, advisoryId: string) => `${repositoryId}/${advisoryId}`;

/** The advisories of every repository: what the API lists and what the publisher builds updateinfo.xml from. */
export const advisoriesProjection: Projection = {
  name: 'advisories',
  collections: [ADVISORIES],
  async handle(recorded, readModels) {
    const event = followedEvent(recorded);
    const advisories = readModels.collection<AdvisoryDocument>(ADVISORIES);
    // a deleted repository's advisories are kept while it can be restored
    const purged = purgedRepositoryId(event);
    if (purged) {
      await advisories.deleteMany({ repositoryId: purged });
      return;
    }
    switch (event?.type) {
      case 'AdvisoryCreated': {
        const advisory = event.data.advisory!;
        await advisories.upsert({ id: advisoryDocumentId(advisory.repositoryId, advisory.id), repositoryId: advisory.repositoryId, issuedAt: advisory.issuedAt, advisory });
        return;
      }
      case 'AdvisoryDeleted':
        await advisories.delete(advisoryDocumentId(event.data.repositoryId, event.data.advisoryId));
        return;
    }
  },
};
