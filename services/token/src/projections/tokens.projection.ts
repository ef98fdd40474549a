import { decodeEvent, isInboxEvent, type Projection } from '@packyard/platform';
import { FilesServed } from '@packyard/proto/packyard/delivery/v1/events';
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

/** a repository token whose value an account access token was shown */
export interface RepoTokenRevealDocument {
  id: string;
  repoTokenId: string;
  accessTokenId: string;
}

export const REPO_TOKENS = 'repo_tokens';
export const REPO_TOKEN_REVEALS = 'repo_token_reveals';
export const ACCESS_TOKENS = 'access_tokens';

const FOLLOWED = {
  RepoTokenCreated,
  RepoTokenRevoked,
  RepoTokenRevealed,
  AccessTokenCreated,
  AccessTokenRevoked,
  AccessTokenUsed,
  FilesServed,
};

/** the tokens as the console lists them, with their uses counted from what delivery served (validation reads token-hashes) */
export const tokensProjection: Projection = {
  name: 'tokens',
  collections: [REPO_TOKENS, ACCESS_TOKENS, REPO_TOKEN_REVEALS],
  async handle(recorded, readModels) {
    const event = decodeEvent(recorded, FOLLOWED);
    if (!event) return;
    const repoTokens = readModels.collection<RepoTokenDocument>(REPO_TOKENS);
    const accessTokens = readModels.collection<AccessTokenDocument>(ACCESS_TOKENS);
    const reveals = readModels.collection<RepoTokenRevealDocument>(REPO_TOKEN_REVEALS);
    switch (event.type) {
      case 'RepoTokenCreated': {
        const { tokenId: id, repositoryId, ownerId, name, sealedValue, createdAt } = event.data;
        await repoTokens.upsert({ id, repositoryId, ownerId, name, sealedValue, createdAt, lastUsedAt: '', usageCount: 0, position: 0 });
        return;
      }
      case 'RepoTokenRevoked': {
        const { tokenId } = event.data;
        await repoTokens.delete(tokenId);
        await reveals.deleteMany({ repoTokenId: tokenId });
        return;
      }
      case 'RepoTokenRevealed': {
        const { tokenId: repoTokenId, accessTokenId } = event.data;
        await reveals.upsert({ id: `${accessTokenId}:${repoTokenId}`, repoTokenId, accessTokenId });
        return;
      }
      case 'AccessTokenCreated': {
        const { tokenId: id, ownerId, name, scopes, repositoryId, createdAt } = event.data;
        await accessTokens.upsert({ id, ownerId, name, scopes, repositoryId, createdAt, lastUsed: '', position: 0 });
        return;
      }
      case 'AccessTokenRevoked': {
        const { tokenId } = event.data;
        await accessTokens.delete(tokenId);
        return;
      }
      case 'AccessTokenUsed': {
        const { tokenId, usedAt } = event.data;
        const accessToken = await accessTokens.get(tokenId);
        if (accessToken && usedAt > accessToken.lastUsed) await accessTokens.upsert({ ...accessToken, lastUsed: usedAt });
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
