import { describe, expect, it } from 'vitest';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { USER_TOKENS, userTokensProjection, type UserTokenDocument } from './user-tokens.projection';

const created = (tokenId: string, tokenHash: string, userId = 'u-1') => ({
  type: 'UserTokenCreated',
  stream: `user-${userId}`,
  data: { userId, tokenId, name: tokenId, scopes: ['read'], tokenHash, createdAt: '2025-01-01T00:00:00.000Z' },
});

describe('user tokens projection', () => {
  it('finds a key by the hash of its value', () =>
    projectionSpec(userTokensProjection)
      .given([])
      .when([created('t-1', 'hash-1')])
      .then(async (readModels) => {
        expect(await readModels.collection<UserTokenDocument>(USER_TOKENS).get('hash-1')).toEqual({ id: 'hash-1', tokenId: 't-1', userId: 'u-1', scopes: ['read'] });
      }));

  it('forgets a deleted key and keeps the others', () =>
    projectionSpec(userTokensProjection)
      .given([created('t-1', 'hash-1'), created('t-2', 'hash-2')])
      .when([{ type: 'UserTokenDeleted', stream: 'user-u-1', data: { userId: 'u-1', tokenId: 't-1', at: '2025-01-02T00:00:00.000Z' } }])
      .then(async (readModels) => {
        const tokens = readModels.collection<UserTokenDocument>(USER_TOKENS);
        expect(await tokens.get('hash-1')).toBeUndefined();
        expect(await tokens.get('hash-2')).toMatchObject({ tokenId: 't-2' });
      }));

  it("forgets every key of a deleted account, and only that account's", () =>
    projectionSpec(userTokensProjection)
      .given([created('t-1', 'hash-1'), created('t-2', 'hash-2'), created('t-3', 'hash-3', 'u-2')])
      .when([{ type: 'UserDeleted', stream: 'user-u-1', data: { userId: 'u-1', deletedAt: '2025-01-02T00:00:00.000Z' } }])
      .then(async (readModels) => {
        const tokens = readModels.collection<UserTokenDocument>(USER_TOKENS);
        expect(await tokens.get('hash-1')).toBeUndefined();
        expect(await tokens.get('hash-2')).toBeUndefined();
        expect(await tokens.get('hash-3')).toMatchObject({ tokenId: 't-3' });
      }));
});
