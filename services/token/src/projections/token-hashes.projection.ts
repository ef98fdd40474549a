import { decodeEvent, isInboxEvent, type Projection, type ReadModelStore } from '@packyard/platform';
import { RepositoryDeleted, RepositoryPurged, RepositoryRestored } from '@packyard/proto/packyard/repository/v1/events';
import { AccessTokenCreated, AccessTokenRevoked, RepoTokenCreated, RepoTokenRevoked } from '@packyard/proto/packyard/token/v1/events';

/** the lookup ValidateToken does: keyed by the SHA-256 of the value, so it is a primary-key read */
export interface TokenHashDocument {
  id: string;
  kind: 'repo_token' | 'access_token';
  tokenId: string;
  ownerId: string;
  repositoryId: string;
  scopes: string[];
}

export const TOKEN_HASHES = 'token_hashes';
/** deleted repositories in their grace period: their tokens are refused, not revoked, so a restoration brings them back */
export const SUSPENDED_REPOSITORIES = 'suspended_repositories';

const FOLLOWED = { RepoTokenCreated, RepoTokenRevoked, AccessTokenCreated, AccessTokenRevoked, RepositoryDeleted, RepositoryRestored, RepositoryPurged };

/**
 * What validating a token reads, and nothing else: kept apart from the tokens projection,
 * which counts every download, so that a backlog of traffic to count never holds up the
 * validator (it waits for this projection alone before it answers after a start).
 */
export const tokenHashesProjection: Projection = {
  name: 'token-hashes',
  collections: [TOKEN_HASHES, SUSPENDED_REPOSITORIES],
  async handle(recorded, readModels) {
    const event = decodeEvent(recorded, FOLLOWED);
    if (!event) return;
    const hashes = readModels.collection<TokenHashDocument>(TOKEN_HASHES);
    const suspended = readModels.collection(SUSPENDED_REPOSITORIES);
    switch (event.type) {
      case 'RepoTokenCreated': {
        const { valueHash, tokenId, ownerId, repositoryId } = event.data;
        await hashes.upsert({ id: valueHash, kind: 'repo_token', tokenId, ownerId, repositoryId, scopes: ['read'] });
        return;
      }
      case 'AccessTokenCreated': {
        const { valueHash, tokenId, ownerId, repositoryId, scopes } = event.data;
        await hashes.upsert({ id: valueHash, kind: 'access_token', tokenId, ownerId, repositoryId, scopes });
        return;
      }
      case 'RepoTokenRevoked':
      case 'AccessTokenRevoked':
        await hashes.deleteMany({ tokenId: event.data.tokenId });
        return;
      case 'RepositoryDeleted':
        if (isInboxEvent(recorded.stream, 'repository')) await suspended.upsert({ id: event.data.repositoryId });
        return;
      case 'RepositoryRestored':
      case 'RepositoryPurged':
        if (isInboxEvent(recorded.stream, 'repository')) await suspended.delete(event.data.repositoryId);
        return;
    }
  },
};

/**
 * Until token-hashes existed, the tokens projection kept its collections: on the first start
 * with it, it takes over from the tokens projection's checkpoint instead of reading the
 * whole log again (traffic included) before the validator may answer.
 */
export async function startTokenHashesWhereTokensWas(readModels: Pick<ReadModelStore, 'getCheckpoint' | 'setCheckpoint'>, tokensProjectionName: string): Promise<void> {
  if ((await readModels.getCheckpoint(tokenHashesProjection.name)) > 0) return;
  const tokens = await readModels.getCheckpoint(tokensProjectionName);
  if (tokens > 0) await readModels.setCheckpoint(tokenHashesProjection.name, tokens);
}
