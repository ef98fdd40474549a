import { describe, expect, it } from 'vitest';
import { inboxStream } from '@packyard/platform';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { TOKEN_HASHES, tokenHashesProjection } from './token-hashes.projection';
import { REPO_TOKENS, tokensProjection, type RepoTokenDocument } from './tokens.projection';

const created = {
  type: 'RepoTokenCreated',
  stream: 'repo_token-t-1',
  data: { tokenId: 't-1', repositoryId: 'r-1', ownerId: 'u-1', name: 'ci', sealedValue: 'v1.x', valueHash: 'hash-1', createdAt: '2026-01-01T00:00:00Z' },
};
const served = (id: string, requests: number, lastServedAt: string) => ({
  type: 'FilesServed',
  stream: inboxStream('delivery', id),
  data: { repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1', tokenId: 't-1', tokenKind: 'repo_token', requests, bytes: 10, lastServedAt },
});

const revoked = { type: 'RepoTokenRevoked', stream: 'repo_token-t-1', data: { tokenId: 't-1', repositoryId: 'r-1', ownerId: 'u-1', revokedAt: '2026-01-02T00:00:00Z' } };

describe('tokens projection', () => {
  it('keeps the last use and the use count of a repository token from what delivery served, once per event', () =>
    projectionSpec(tokensProjection)
      .given([created, served('m-1', 3, '2026-01-03T00:00:00Z')])
      .when([served('m-2', 2, '2026-01-02T00:00:00Z')])
      .then(async (readModels) => {
        expect(await readModels.collection<RepoTokenDocument>(REPO_TOKENS).get('t-1')).toMatchObject({ usageCount: 5, lastUsedAt: '2026-01-03T00:00:00Z' });
      }));

  it('forgets a revoked token', () =>
    projectionSpec(tokensProjection)
      .given([created])
      .when([revoked])
      .then(async (readModels) => {
        expect(await readModels.collection(REPO_TOKENS).get('t-1')).toBeUndefined();
      }));
});

describe('token hashes projection', () => {
  it('keeps the hash of a created token, so it validates', () =>
    projectionSpec(tokenHashesProjection)
      .given([])
      .when([created])
      .then(async (readModels) => {
        expect(await readModels.collection(TOKEN_HASHES).get('hash-1')).toMatchObject({ kind: 'repo_token', tokenId: 't-1', repositoryId: 'r-1', scopes: ['read'] });
      }));

  it('forgets the hash of a revoked token, so it no longer validates', () =>
    projectionSpec(tokenHashesProjection)
      .given([created])
      .when([revoked])
      .then(async (readModels) => {
        expect(await readModels.collection(TOKEN_HASHES).get('hash-1')).toBeUndefined();
      }));
});
