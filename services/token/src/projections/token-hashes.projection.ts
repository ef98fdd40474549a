import { decodeEvent, isInboxEvent, projectTokenHash, TOKEN_HASH_EVENTS, type Projection, type TokenHashDocument } from '@packyard/platform';
import { RepositoryDeleted, RepositoryPurged, RepositoryRestored } from '@packyard/proto/packyard/repository/v1/events';

/** the lookup ValidateToken does: keyed by the SHA-256 of the value, so it is a primary-key read */
export const TOKEN_HASHES = 'token_hashes';
/** deleted repositories in their grace period: their tokens are refused, not revoked, so a restoration brings them back */
export const SUSPENDED_REPOSITORIES = 'suspended_repositories';

const SUSPENSIONS = { RepositoryDeleted, RepositoryRestored, RepositoryPurged };

/**
 * What validating a token reads, and nothing else: kept apart from the tokens projection,
 * which counts every download, so that a backlog of traffic to count never holds up the
 * validator (it waits for this projection alone before it answers after a start).
 */
export const tokenHashesProjection: Projection = {
  name: 'token-hashes',
  collections: [TOKEN_HASHES, SUSPENDED_REPOSITORIES],
  async handle(recorded, readModels) {
    const tokenEvent = decodeEvent(recorded, TOKEN_HASH_EVENTS);
    if (tokenEvent) return void (await projectTokenHash(tokenEvent, readModels.collection<TokenHashDocument>(TOKEN_HASHES)));
    if (!isInboxEvent(recorded.stream, 'repository')) return;
    const event = decodeEvent(recorded, SUSPENSIONS);
    if (!event) return;
    const suspended = readModels.collection(SUSPENDED_REPOSITORIES);
    if (event.type === 'RepositoryDeleted') await suspended.upsert({ id: event.data.repositoryId });
    else await suspended.delete(event.data.repositoryId);
  },
};
