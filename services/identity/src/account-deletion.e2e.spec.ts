import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { apiSession, registerUser } from '@packyard/testing/api-session';

const PASSWORD = 'correct horse battery';

describe('Delete Account over HTTP', () => {
  let packyard: RunningPackyard;
  beforeAll(async () => {
    packyard = await startPackyard();
  });
  afterAll(() => packyard?.dispose());

  const auth = async (path: string, body: unknown) => {
    const response = await fetch(`${packyard.url}/api/v1/auth/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };

  it("removes the account with its workspaces, repositories, tokens and sessions; sign-in fails after; the address can register anew", async () => {
    const email = `leaving-${randomUUID()}@example.com`;
    const alice = await registerUser(packyard, email);
    const bob = await registerUser(packyard);
    const slug = `leaving-${Date.now()}`;
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Leaving', slug })).body;
    const repo = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt' })).body;
    const repoToken = (await alice.call('POST', `/repos/${repo.id}/tokens`, { name: 'server' })).body.token;
    const accessToken = (await alice.call('POST', '/tokens', { name: 'ci', scopes: ['read'] })).body.token;
    const apiKey = (await alice.call('POST', '/user/tokens', { name: 'laptop', scopes: ['read'] })).body.token;
    const otherSession = (await auth('login', { email, password: PASSWORD })).body;
    const bobsWorkspace = (await bob.call('POST', '/workspaces', { name: 'Staying', slug: `staying-${Date.now()}` })).body;
    const inRelease = `${packyard.url}/deb/${slug}/apt/ubuntu/dists/noble/InRelease`;
    const basic = { authorization: `Basic ${Buffer.from(`${repoToken}:`).toString('base64')}` };
    await expect.poll(async () => (await fetch(inRelease, { headers: basic })).status, { timeout: 15_000 }).not.toBe(401);
    expect((await alice.as(accessToken).call('GET', '/workspaces')).status).toBe(200);

    const wrong = await alice.call('DELETE', '/user', { confirmation: 'not my password' });
    expect(wrong).toEqual({ status: 400, body: { status: 400, message: 'Password is incorrect', details: expect.any(Object) } });
    expect((await alice.as(apiKey).call('DELETE', '/user', { confirmation: PASSWORD })).status).toBe(403);
    expect((await alice.call('GET', '/workspaces')).body.workspaces).toHaveLength(1);

    expect((await alice.call('DELETE', '/user', { confirmation: PASSWORD })).status).toBe(204);

    expect((await auth('login', { email, password: PASSWORD })).status).toBe(401);
    expect((await auth('refresh', { refreshToken: otherSession.refreshToken })).status).toBe(401);
    expect((await alice.as(apiKey).call('GET', '/workspaces')).status).toBe(401);
    await expect.poll(async () => (await alice.as(accessToken).call('GET', '/workspaces')).status, { timeout: 15_000 }).toBe(401);
    await expect.poll(async () => (await fetch(inRelease, { headers: basic })).status, { timeout: 15_000 }).toBe(401);
    expect((await bob.call('GET', `/workspaces/${bobsWorkspace.id}`)).status).toBe(200);

    const again = await auth('register', { email, password: 'a new beginning' });
    expect(again.status).toBe(201);
    const fresh = apiSession(packyard, again.body.idToken, email);
    await expect.poll(async () => (await fresh.call('GET', '/workspaces')).body.workspaces, { timeout: 15_000 }).toEqual([]);
    expect((await fresh.call('GET', '/user/tokens')).body).toEqual([]);
    expect((await fresh.call('GET', '/user/profile')).body).toMatchObject({ email, theme: 'system' });
    // the slug of the deleted workspace is free again
    expect((await fresh.call('POST', '/workspaces', { name: 'Back', slug })).status).toBe(201);
  });

  it('documents DELETE /api/v1/user', async () => {
    const doc = await (await fetch(`${packyard.url}/api/openapi.json`)).json();
    expect(doc.paths).toHaveProperty(['/api/v1/user', 'delete']);
  });
});
