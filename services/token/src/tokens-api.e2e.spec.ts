import { randomBytes } from 'node:crypto';
import { createChannel, createClient, Metadata, Status, type Channel } from 'nice-grpc';
import { CALLER_METADATA_KEY, CallerAssertions, serviceCaller } from '@packyard/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenServiceDefinition } from '@packyard/proto/packyard/token/v1/token';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';

const internalAuthKey = randomBytes(32);

describe('repository tokens, account access tokens and ValidateToken', () => {
  let packyard: RunningPackyard;
  let channel: Channel;
  let alice: ApiSession;
  let workspaceId: string;
  let repoId: string;
  let otherRepoId: string;
  // delivery and the gateway validate tokens; they call as their service identity
  const validate = async (token: string, repositoryId = '') =>
    createClient(TokenServiceDefinition, channel).validateToken(
      { token, repositoryId },
      { metadata: Metadata({ [CALLER_METADATA_KEY]: await new CallerAssertions(internalAuthKey).assert(serviceCaller('delivery')) }) },
    );

  beforeAll(async () => {
    packyard = await startPackyard({ env: { INTERNAL_AUTH_KEY: internalAuthKey.toString('base64') } });
    channel = createChannel(packyard.grpcAddress);
    alice = await registerUser(packyard);
    workspaceId = (await alice.call('POST', '/workspaces', { name: 'Tokens', slug: `tokens-${Date.now()}` })).body.id;
    repoId = (await alice.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'apt' })).body.id;
    otherRepoId = (await alice.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'other' })).body.id;
  });
  afterAll(async () => {
    channel?.close();
    await packyard?.dispose();
  });

  it('creates a repository token whose value is shown, hidden in the list, and revealable', async () => {
    const created = await alice.call('POST', `/repos/${repoId}/tokens`, { name: '  production-server  ' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'production-server', isActive: true, lastUsedAt: null, usageCount: 0 });
    expect(created.body.token).toMatch(/^pyd_rt_[A-Za-z0-9_-]{43}$/);

    const list = await alice.call('GET', `/repos/${repoId}/tokens`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ id: created.body.id, name: 'production-server', isActive: true, createdAt: created.body.createdAt, lastUsedAt: null, usageCount: 0 }]);
    expect((await alice.call('GET', `/repos/${otherRepoId}/tokens`)).body).toEqual([]);

    const revealed = await alice.call('GET', `/repos/${repoId}/tokens/${created.body.id}/reveal`);
    expect(revealed).toEqual({ status: 200, body: { token: created.body.token } });
    // the value is stored sealed, never in clear
    expect(packyard.output()).not.toContain(created.body.token);
  });

  it('reveals repository tokens to a signed-in user or an admin account token only, never for a cache to keep', async () => {
    const created = (await alice.call('POST', `/repos/${repoId}/tokens`, { name: 'reveal-scopes' })).body;
    const path = `/repos/${repoId}/tokens/${created.id}/reveal`;
    for (const scopes of [['read'], ['publish'], ['read', 'publish']]) {
      const token = (await alice.call('POST', '/tokens', { name: `only-${scopes.join('-')}`, scopes })).body.token;
      expect({ scopes, ...(await alice.as(token).call('GET', path)) }).toMatchObject({ scopes, status: 403, body: { message: 'This token lacks the "admin" scope' } });
    }
    const admin = (await alice.call('POST', '/tokens', { name: 'admin', scopes: ['admin'] })).body.token;
    expect(await alice.as(admin).call('GET', path)).toEqual({ status: 200, body: { token: created.token } });
    const response = await fetch(`${packyard.url}/api/v1${path}`, { headers: { authorization: `Bearer ${alice.bearer}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    // the token service holds the line too, for a caller that does not come through the gateway
    const readToken = await validate((await alice.call('POST', '/tokens', { name: 'grpc-read', scopes: ['read'] })).body.token);
    const asReadToken = Metadata({
      [CALLER_METADATA_KEY]: await new CallerAssertions(internalAuthKey).assert({ userId: readToken.ownerId, kind: 'access_token', scopes: readToken.scopes, repositoryId: '', tokenId: readToken.tokenId }),
    });
    await expect(createClient(TokenServiceDefinition, channel).revealRepoToken({ repositoryId: repoId, tokenId: created.id }, { metadata: asReadToken })).rejects.toMatchObject({ code: Status.PERMISSION_DENIED });
  });

  it('revokes the repository tokens an account token revealed when that account token is revoked', async () => {
    const revealedByAdmin = (await alice.call('POST', `/repos/${repoId}/tokens`, { name: 'seen-by-ci' })).body;
    const seenByUserOnly = (await alice.call('POST', `/repos/${repoId}/tokens`, { name: 'seen-by-alice' })).body;
    const admin = (await alice.call('POST', '/tokens', { name: 'ci-admin', scopes: ['admin'] })).body;
    expect((await alice.as(admin.token).call('GET', `/repos/${repoId}/tokens/${revealedByAdmin.id}/reveal`)).status).toBe(200);
    expect((await alice.call('GET', `/repos/${repoId}/tokens/${seenByUserOnly.id}/reveal`)).status).toBe(200);
    expect((await validate(revealedByAdmin.token, repoId)).valid).toBe(true);

    expect((await alice.call('DELETE', `/tokens/${admin.id}`)).status).toBe(204);
    // whoever held the account token may have kept what it revealed: that goes with it
    await expect.poll(async () => (await validate(revealedByAdmin.token, repoId)).valid, { timeout: 2000 }).toBe(false);
    const listed = (await alice.call('GET', `/repos/${repoId}/tokens`)).body.map((token: { id: string }) => token.id);
    expect(listed).not.toContain(revealedByAdmin.id);
    expect(listed).toContain(seenByUserOnly.id);
    expect((await validate(seenByUserOnly.token, repoId)).valid).toBe(true);
  });

  it('answers 400 for a blank token name and 404 for unknown repositories and tokens', async () => {
    expect((await alice.call('POST', `/repos/${repoId}/tokens`, { name: '   ' })).body).toMatchObject({ status: 400, message: 'Token name is required' });
    expect((await alice.call('POST', `/repos/${repoId}/tokens`, {})).status).toBe(400);
    expect((await alice.call('GET', '/repos/no-such-repo/tokens')).status).toBe(404);
    expect((await alice.call('POST', '/repos/no-such-repo/tokens', { name: 'x' })).status).toBe(404);
    expect((await alice.call('GET', `/repos/${repoId}/tokens/no-such-token/reveal`)).status).toBe(404);
    expect((await alice.call('DELETE', `/repos/${repoId}/tokens/no-such-token`)).status).toBe(404);
    // a token of one repository is not found under another
    const token = (await alice.call('POST', `/repos/${repoId}/tokens`, { name: 'ci' })).body;
    expect((await alice.call('GET', `/repos/${otherRepoId}/tokens/${token.id}/reveal`)).status).toBe(404);
    expect((await alice.call('DELETE', `/repos/${otherRepoId}/tokens/${token.id}`)).status).toBe(404);
  });

  it('validates a repository token for its own repository only, and not once deleted', async () => {
    const token = (await alice.call('POST', `/repos/${repoId}/tokens`, { name: 'deploy' })).body;
    expect(await validate(token.token, repoId)).toMatchObject({ valid: true, kind: 'repo_token', tokenId: token.id, repositoryId: repoId, scopes: ['read'] });
    expect((await validate(token.token, otherRepoId)).valid).toBe(false);
    expect((await validate(`${token.token}x`, repoId)).valid).toBe(false);
    // a repository token is no API bearer
    expect((await alice.as(token.token).call('GET', '/workspaces')).status).toBe(401);

    expect((await alice.call('DELETE', `/repos/${repoId}/tokens/${token.id}`)).status).toBe(204);
    expect((await validate(token.token, repoId)).valid).toBe(false);
    expect((await alice.call('GET', `/repos/${repoId}/tokens/${token.id}/reveal`)).status).toBe(404);
  });

  it('creates account access tokens shown once, lists them without values, and validates 400s', async () => {
    const created = await alice.call('POST', '/tokens', { name: 'laptop', scopes: ['admin', 'read', 'read'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'laptop', scopes: ['read', 'admin'], repositoryId: null, lastUsed: null });
    expect(created.body.token).toMatch(/^pyd_at_[A-Za-z0-9_-]{43}$/);
    const listed = (await alice.call('GET', '/tokens')).body.find((t: { id: string }) => t.id === created.body.id);
    expect(listed).toEqual({ id: created.body.id, name: 'laptop', scopes: ['read', 'admin'], repositoryId: null, createdAt: created.body.createdAt, lastUsed: null });

    expect((await alice.call('POST', '/tokens', { name: 'x', scopes: [] })).body).toMatchObject({ status: 400, message: 'Select at least one scope' });
    expect((await alice.call('POST', '/tokens', { name: 'x', scopes: ['write'] })).status).toBe(400);
    expect((await alice.call('POST', '/tokens', { name: ' ', scopes: ['read'] })).status).toBe(400);
    expect((await alice.call('POST', '/tokens', { name: 'x', scopes: ['read'], repositoryId: 'no-such-repo' })).status).toBe(404);
    expect((await alice.call('DELETE', '/tokens/no-such-token')).status).toBe(404);
  });

  it('lets an access token act within its scopes (403 outside), and stops it on deletion', async () => {
    const reader = (await alice.call('POST', '/tokens', { name: 'reader', scopes: ['read'] })).body;
    const asReader = alice.as(reader.token);
    expect((await asReader.call('GET', '/workspaces')).status).toBe(200);
    const lastUsedOfReader = async () => (await alice.call('GET', '/tokens')).body.find((t: { id: string }) => t.id === reader.id).lastUsed;
    await expect.poll(lastUsedOfReader, { timeout: 10_000 }).not.toBeNull();
    expect((await asReader.call('GET', `/workspaces/${workspaceId}/repos`)).body.map((r: { id: string }) => r.id)).toEqual([repoId, otherRepoId]);
    expect((await asReader.call('POST', '/workspaces', { name: 'nope' })).status).toBe(403);
    expect((await asReader.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'nope' })).status).toBe(403);
    expect((await asReader.call('DELETE', `/workspaces/${workspaceId}/repos/${repoId}`)).status).toBe(403);
    expect((await asReader.call('POST', `/repos/${repoId}/tokens`, { name: 'nope' })).status).toBe(403);
    expect((await asReader.call('POST', '/tokens', { name: 'nope', scopes: ['read'] })).status).toBe(403);

    const admin = (await alice.call('POST', '/tokens', { name: 'admin', scopes: ['read', 'admin'] })).body;
    const asAdmin = alice.as(admin.token);
    expect((await asAdmin.call('POST', `/repos/${repoId}/tokens`, { name: 'made-by-token' })).status).toBe(201);
    // a token cannot mint a wider one
    expect((await asAdmin.call('POST', '/tokens', { name: 'wider', scopes: ['publish'] })).status).toBe(403);
    expect((await asAdmin.call('POST', '/tokens', { name: 'narrower', scopes: ['read'] })).status).toBe(201);

    expect((await alice.call('DELETE', `/tokens/${reader.id}`)).status).toBe(204);
    expect((await asReader.call('GET', '/workspaces')).status).toBe(401);
    expect((await validate(reader.token)).valid).toBe(false);
  });

  it('limits an access token to one repository', async () => {
    const limited = (await alice.call('POST', '/tokens', { name: 'one-repo', scopes: ['read', 'admin'], repositoryId: repoId })).body;
    expect(limited.repositoryId).toBe(repoId);
    const asLimited = alice.as(limited.token);
    expect((await asLimited.call('GET', '/repos')).body.map((r: { id: string }) => r.id)).toEqual([repoId]);
    expect((await asLimited.call('GET', `/workspaces/${workspaceId}/repos`)).body.map((r: { id: string }) => r.id)).toEqual([repoId]);
    expect((await asLimited.call('GET', `/workspaces/${workspaceId}/repos/${otherRepoId}`)).status).toBe(404);
    expect((await asLimited.call('GET', `/repos/${otherRepoId}/tokens`)).status).toBe(404);
    expect((await asLimited.call('GET', `/repos/${repoId}/tokens`)).status).toBe(200);
    expect((await asLimited.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'third' })).status).toBe(403);
    expect((await asLimited.call('POST', '/workspaces', { name: 'elsewhere' })).status).toBe(403);
    expect((await asLimited.call('DELETE', `/workspaces/${workspaceId}`)).status).toBe(403);
    expect((await asLimited.call('POST', '/tokens', { name: 'escape', scopes: ['read'] })).status).toBe(403);
    expect((await validate(limited.token, otherRepoId)).valid).toBe(false);
    expect(await validate(limited.token, repoId)).toMatchObject({ valid: true, kind: 'access_token', repositoryId: repoId });
  });

  it('refuses the tokens of a deleted repository (revoked when it is purged)', async () => {
    const doomed = (await alice.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'doomed' })).body;
    const repoToken = (await alice.call('POST', `/repos/${doomed.id}/tokens`, { name: 'ci' })).body;
    const limited = (await alice.call('POST', '/tokens', { name: 'doomed-only', scopes: ['read'], repositoryId: doomed.id })).body;
    expect((await validate(repoToken.token, doomed.id)).valid).toBe(true);
    expect((await alice.call('DELETE', `/workspaces/${workspaceId}/repos/${doomed.id}`)).status).toBe(204);
    await expect.poll(async () => (await validate(repoToken.token, doomed.id)).valid, { timeout: 10_000 }).toBe(false);
    await expect.poll(async () => (await validate(limited.token)).valid, { timeout: 10_000 }).toBe(false);
  });
});
