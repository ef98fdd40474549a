import { decodeEvent, isInboxEvent, type Projection } from '@packyard/platform';
import { FilesServed } from '@packyard/proto/packyard/delivery/v1/events';
import { RepositoryDeleted, RepositoryPurged, RepositoryRestored } from '@packyard/proto/packyard/repository/v1/events';
import { AccessTokenCreated, AccessTokenRevoked, AccessTokenUsed, RepoTokenCreated, RepoTokenRevealed, RepoTokenRevoked } from '@packyard/proto/packyard/token/v1/events';

export interface RepoTokenDocument {
  id: string;
  repositoryId: string;
  ownerId: string;
  name: string;
  sealedValue: string;
  createdAt: string;
  lastUsedAt: string;
  usageCount: number;
  /** the last event position counted into the usage: a replayed download is not counted twice */
  position: number;
}

export interface AccessTokenDocument {
  id: string;
  ownerId: string;
  name: string;
  scopes: string[];
  repositoryId: string;
  createdAt: string;
  lastUsed: string;
  position: number;
}

/** the lookup ValidateToken does: keyed by the SHA-256 of the value, so it is a primary-key read */
export interface TokenHashDocument {
  id: string;
  kind: 'repo_token' | 'access_token';
  tokenId: string;
  ownerId: string;
  repositoryId: string;
  scopes: string[];
}

/** a repository token whose value an account access token was shown */
export interface RepoTokenRevealDocument {
  id: string;
  repoTokenId: string;
  accessTokenId: string;
}

export const REPO_TOKENS = 'repo_tokens';
export const REPO_TOKEN_REVEALS = 'repo_token_reveals';
export const ACCESS_TOKENS = 'access_tokens';
export const TOKEN_HASHES = 'token_hashes';
/** deleted repositories in their grace period: their tokens are refused, not revoked, so a restoration brings them back */
export const SUSPENDED_REPOSITORIES = 'suspended_repositories';

const FOLLOWED = {
  RepoTokenCreated,
  RepoTokenRevoked,
  RepoTokenRevealed,
  AccessTokenCreated,
  AccessTokenRevoked,
  AccessTokenUsed,
  RepositoryDeleted,
  RepositoryRestored,
  RepositoryPurged,
  FilesServed,
};

export const tokensProjection: Projection = {
  name: 'tokens',
  collections: [REPO_TOKENS, ACCESS_TOKENS, TOKEN_HASHES, REPO_TOKEN_REVEALS, SUSPENDED_REPOSITORIES],
  async handle(recorded, readModels) {
    const event = decodeEvent(recorded, FOLLOWED);
    if (!event) return;
    const repoTokens = readModels.collection<RepoTokenDocument>(REPO_TOKENS);
    const accessTokens = readModels.collection<AccessTokenDocument>(ACCESS_TOKENS);
    const hashes = readModels.collection<TokenHashDocument>(TOKEN_HASHES);
    const reveals = readModels.collection<RepoTokenRevealDocument>(REPO_TOKEN_REVEALS);
    switch (event.type) {
      case 'RepoTokenCreated': {
        const data = event.data;
        const { tokenId: id, repositoryId, ownerId, name, sealedValue, createdAt } = data;
        await repoTokens.upsert({ id, repositoryId, ownerId, name, sealedValue, createdAt, lastUsedAt: '', usageCount: 0, position: 0 });
        await hashes.upsert({ id: data.valueHash, kind: 'repo_token', tokenId: id, ownerId, repositoryId, scopes: ['read'] });
        return;
      }
      case 'RepoTokenRevoked': {
        const { tokenId } = event.data;
        await repoTokens.delete(tokenId);
        await hashes.deleteMany({ tokenId });
        await reveals.deleteMany({ repoTokenId: tokenId });
        return;
      }
      case 'RepoTokenRevealed': {
        const { tokenId: repoTokenId, accessTokenId } = event.data;
        await reveals.upsert({ id: `${accessTokenId}:${repoTokenId}`, repoTokenId, accessTokenId });
        return;
      }
      case 'AccessTokenCreated': {
        const data = event.data;
        const { tokenId: id, ownerId, name, scopes, repositoryId, createdAt } = data;
        await accessTokens.upsert({ id, ownerId, name, scopes, repositoryId, createdAt, lastUsed: '', position: 0 });
        await hashes.upsert({ id: data.valueHash, kind: 'access_token', tokenId: id, ownerId, repositoryId, scopes });
        return;
      }
      case 'AccessTokenRevoked': {
        const { tokenId } = event.data;
        await accessTokens.delete(tokenId);
        await hashes.deleteMany({ tokenId });
        return;
      }
      case 'AccessTokenUsed': {
        const { tokenId, usedAt } = event.data;
        const accessToken = await accessTokens.get(tokenId);
        if (accessToken && usedAt > accessToken.lastUsed) await accessTokens.upsert({ ...accessToken, lastUsed: usedAt });
        return;
      }
      case 'RepositoryDeleted': {
        if (!isInboxEvent(recorded.stream, 'repository')) return;
        await readModels.collection(SUSPENDED_REPOSITORIES).upsert({ id: event.data.repositoryId });
        return;
      }
      case 'RepositoryRestored':
      case 'RepositoryPurged': {
        if (!isInboxEvent(recorded.stream, 'repository')) return;
        await readModels.collection(SUSPENDED_REPOSITORIES).delete(event.data.repositoryId);
        return;
      }
      case 'FilesServed': {
        if (!isInboxEvent(recorded.stream, 'delivery')) return;
        const data = event.data;
        if (!data.tokenId) return;
        const repoToken = await repoTokens.get(data.tokenId);
        if (repoToken && repoToken.position < recorded.position) {
          const lastUsedAt = data.lastServedAt > repoToken.lastUsedAt ? data.lastServedAt : repoToken.lastUsedAt;
          await repoTokens.upsert({ ...repoToken, lastUsedAt, usageCount: repoToken.usageCount + data.requests, position: recorded.position });
        }
        const accessToken = await accessTokens.get(data.tokenId);
        if (accessToken && accessToken.position < recorded.position) {
          const lastUsed = data.lastServedAt > accessToken.lastUsed ? data.lastServedAt : accessToken.lastUsed;
          await accessTokens.upsert({ ...accessToken, lastUsed, position: recorded.position });
        }
        return;
      }
    }
  },
};
