import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { accessTokenDecider } from './access-token.decider';
import { repoTokenDecider } from './repo-token.decider';

const now = '2026-01-02T03:04:05.000Z';

describe('repository token decider', () => {
  const spec = deciderSpec(repoTokenDecider);
  const create = (name: string) =>
    ({ type: 'CreateRepoToken', tokenId: 't-1', repositoryId: 'repo-1', ownerId: 'user-1', name, sealedValue: 'v1.sealed', valueHash: 'hash', now }) as const;
  const created = {
    type: 'RepoTokenCreated',
    data: { tokenId: 't-1', repositoryId: 'repo-1', ownerId: 'user-1', name: 'ci', sealedValue: 'v1.sealed', valueHash: 'hash', createdAt: now },
  } as const;
  const revoked = { type: 'RepoTokenRevoked', data: { tokenId: 't-1', repositoryId: 'repo-1', ownerId: 'user-1', revokedAt: now } } as const;

  it('creates a token with the trimmed name', () => spec.given([]).when(create('  ci ')).then([created]));
  it('refuses a blank name', () => spec.given([]).when(create('   ')).thenThrows('Token name is required'));
  it('revokes once; a second revocation changes nothing', () => {
    spec.given([created]).when({ type: 'RevokeRepoToken', tokenId: 't-1', now }).then([revoked]);
    spec.given([created, revoked]).when({ type: 'RevokeRepoToken', tokenId: 't-1', now }).then([]);
  });
  it('cannot revoke a token that never existed', () => spec.given([]).when({ type: 'RevokeRepoToken', tokenId: 't-1', now }).thenThrows('Token not found'));
  it('records which account token was shown the value, of a token that is still active only', () => {
    const reveal = { type: 'RecordRepoTokenReveal', tokenId: 't-1', accessTokenId: 'at-1', now } as const;
    spec.given([created]).when(reveal).then([{ type: 'RepoTokenRevealed', data: { tokenId: 't-1', accessTokenId: 'at-1', revealedAt: now } }]);
    spec.given([created, revoked]).when(reveal).thenThrows('Token not found');
  });
});

describe('access token decider', () => {
  const spec = deciderSpec(accessTokenDecider);
  const create = (scopes: string[], name = 'laptop') =>
    ({ type: 'CreateAccessToken', tokenId: 't-1', ownerId: 'user-1', name, scopes, repositoryId: '', valueHash: 'hash', now }) as const;
  const created = (scopes: string[]) =>
    ({ type: 'AccessTokenCreated', data: { tokenId: 't-1', ownerId: 'user-1', name: 'laptop', scopes, repositoryId: '', valueHash: 'hash', createdAt: now } }) as const;

  it('keeps the scopes asked for, deduplicated in the order read, publish, admin', () =>
    spec.given([]).when(create(['admin', 'read', 'admin'])).then([created(['read', 'admin'])]));
  it('needs at least one known scope and a name', () => {
    spec.given([]).when(create([])).thenThrows('Select at least one scope');
    spec.given([]).when(create(['read', 'write'])).thenThrows('Unknown scope "write"; scopes are read, publish and admin');
    spec.given([]).when(create(['read'], ' ')).thenThrows('Token name is required');
  });
  it('records a use of an active token only', () => {
    const use = { type: 'RecordAccessTokenUse', tokenId: 't-1', now } as const;
    spec.given([created(['read'])]).when(use).then([{ type: 'AccessTokenUsed', data: { tokenId: 't-1', usedAt: now } }]);
    spec.given([created(['read']), { type: 'AccessTokenRevoked', data: { tokenId: 't-1', ownerId: 'user-1', revokedAt: now } }]).when(use).then([]);
  });
  it('revokes once', () => {
    const revoked = { type: 'AccessTokenRevoked', data: { tokenId: 't-1', ownerId: 'user-1', revokedAt: now } } as const;
    spec.given([created(['read'])]).when({ type: 'RevokeAccessToken', tokenId: 't-1', now }).then([revoked]);
    spec.given([created(['read']), revoked]).when({ type: 'RevokeAccessToken', tokenId: 't-1', now }).then([]);
  });
});
