import { describe, expect, it } from 'vitest';
import type { TokenHashDocument } from '@packyard/platform/crypto/token-hash';
import { inboxStream } from '@packyard/platform/eventsourcing/inbox';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { TOKEN_HASHES, tokenHashesProjection, verdictOf } from './token-hashes.projection';
import { grantsRead } from './token-verdicts';

const repository = { id: 'r-1', kind: 'DEB' as const, workspaceId: 'ws-1', workspaceSlug: 'acme', name: 'apt', ownerId: 'u-1', codename: '', component: '' };
const repoTokenCreated = {
  type: 'RepoTokenCreated',
  stream: inboxStream('token', 'm-1'),
  data: { tokenId: 't-1', repositoryId: 'r-1', ownerId: 'u-1', name: 'ci', sealedValue: 'v1.x', valueHash: 'hash-1', createdAt: '2026-01-01T00:00:00Z' },
};
const accessTokenCreated = {
  type: 'AccessTokenCreated',
  stream: inboxStream('token', 'm-2'),
  data: { tokenId: 'a-1', ownerId: 'u-1', name: 'laptop', scopes: ['read', 'publish'], repositoryId: '', valueHash: 'hash-2', createdAt: '2026-01-01T00:00:00Z' },
};
const repoTokenRevoked = { type: 'RepoTokenRevoked', stream: inboxStream('token', 'm-3'), data: { tokenId: 't-1', repositoryId: 'r-1', ownerId: 'u-1', revokedAt: '2026-01-02T00:00:00Z' } };

describe("delivery's copy of the token hashes (Given/When/Then)", () => {
  it('holds a created repository token, which then reads its repository and no other', () =>
    projectionSpec(tokenHashesProjection())
      .given([])
      .when([repoTokenCreated])
      .then(async (readModels) => {
        const verdict = verdictOf((await readModels.collection<TokenHashDocument>(TOKEN_HASHES).get('hash-1'))!);
        expect(verdict).toEqual({ valid: true, kind: 'repo_token', tokenId: 't-1', ownerId: 'u-1', repositoryId: 'r-1', scopes: ['read'] });
        expect(grantsRead(verdict, repository)).toBe(true);
        expect(grantsRead(verdict, { ...repository, id: 'r-2' })).toBe(false);
      }));

  it("holds an account token with its scopes, which reads every repository of its owner's", () =>
    projectionSpec(tokenHashesProjection())
      .given([])
      .when([accessTokenCreated])
      .then(async (readModels) => {
        const verdict = verdictOf((await readModels.collection<TokenHashDocument>(TOKEN_HASHES).get('hash-2'))!);
        expect(verdict).toMatchObject({ kind: 'access_token', tokenId: 'a-1', scopes: ['read', 'publish'], repositoryId: '' });
        expect(grantsRead(verdict, { ...repository, id: 'r-9' })).toBe(true);
        expect(grantsRead(verdict, { ...repository, ownerId: 'u-2' })).toBe(false);
      }));

  it('forgets a revoked token, and tells the verdicts after it is gone', async () => {
    const told: { tokenId: string; stillHeld: boolean }[] = [];
    let readModelsSeen: { collection(name: string): { get(id: string): Promise<unknown> } } | undefined;
    const projection = tokenHashesProjection(async (tokenId) => {
      told.push({ tokenId, stillHeld: (await readModelsSeen!.collection(TOKEN_HASHES).get('hash-1')) !== undefined });
    });
    const spying = { ...projection, handle: (event: Parameters<typeof projection.handle>[0], readModels: Parameters<typeof projection.handle>[1]) => ((readModelsSeen = readModels), projection.handle(event, readModels)) };
    await projectionSpec(spying)
      .given([repoTokenCreated, accessTokenCreated])
      .when([repoTokenRevoked])
      .then(async (readModels) => {
        expect(await readModels.collection(TOKEN_HASHES).get('hash-1')).toBeUndefined();
        expect(await readModels.collection(TOKEN_HASHES).get('hash-2')).toBeDefined();
      });
    // projected twice by the spec (whole history, then the arriving event again): told each time, never while held
    expect(told).toEqual([
      { tokenId: 't-1', stillHeld: false },
      { tokenId: 't-1', stillHeld: false },
    ]);
  });

  it("ignores token events that are not in the token context's inbox", () =>
    projectionSpec(tokenHashesProjection())
      .given([])
      .when([{ ...repoTokenCreated, stream: 'repo_token-t-1' }])
      .then(async (readModels) => {
        expect(await readModels.collection(TOKEN_HASHES).get('hash-1')).toBeUndefined();
      }));
});
