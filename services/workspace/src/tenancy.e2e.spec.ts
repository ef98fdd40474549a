import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';

// Tenancy: another user's objects do not exist for you. User B walks every route with
// user A's ids, with an ID token and with an admin access token, and gets 404 each time.
describe('tenancy: user B against user A', () => {
  let packyard: RunningPackyard;
  let alice: ApiSession;
  let bob: ApiSession;
  let bobToken: ApiSession;
  const a = { workspace: '', repo: '', repoToken: '', accessToken: '', slug: '' };
  const b = { workspace: '', repo: '' };

  beforeAll(async () => {
    packyard = await startPackyard();
    [alice, bob] = await Promise.all([registerUser(packyard), registerUser(packyard)]);
    a.slug = `alice-${Date.now()}`;
    a.workspace = (await alice.call('POST', '/workspaces', { name: 'Alice', slug: a.slug })).body.id;
    a.repo = (await alice.call('POST', `/workspaces/${a.workspace}/repos`, { name: 'private' })).body.id;
    a.repoToken = (await alice.call('POST', `/repos/${a.repo}/tokens`, { name: 'server' })).body.id;
    a.accessToken = (await alice.call('POST', '/tokens', { name: 'laptop', scopes: ['read', 'publish', 'admin'] })).body.id;
    b.workspace = (await bob.call('POST', '/workspaces', { name: 'Bob', slug: `bob-${Date.now()}` })).body.id;
    b.repo = (await bob.call('POST', `/workspaces/${b.workspace}/repos`, { name: 'mine' })).body.id;
    bobToken = bob.as((await bob.call('POST', '/tokens', { name: 'all', scopes: ['read', 'publish', 'admin'] })).body.token);
  });
  afterAll(() => packyard?.dispose());

  const routesOnAlicesIds = (): [string, string, unknown?][] => [
    ['GET', `/workspaces/${a.workspace}`],
    ['DELETE', `/workspaces/${a.workspace}`],
    ['GET', `/workspaces/${a.workspace}/repos`],
    ['POST', `/workspaces/${a.workspace}/repos`, { name: 'intruder' }],
    ['GET', `/workspaces/${a.workspace}/repos/${a.repo}`],
    ['DELETE', `/workspaces/${a.workspace}/repos/${a.repo}`],
    // Alice's repository under Bob's own workspace is not found either
    ['GET', `/workspaces/${b.workspace}/repos/${a.repo}`],
    ['DELETE', `/workspaces/${b.workspace}/repos/${a.repo}`],
    ['GET', `/workspaces/${a.workspace}/repos/${a.repo}/packages`],
    ['DELETE', `/workspaces/${a.workspace}/repos/${a.repo}/packages/some-package`],
    ['GET', `/repos/${a.repo}/tokens`],
    ['POST', `/repos/${a.repo}/tokens`, { name: 'intruder' }],
    ['GET', `/repos/${a.repo}/tokens/${a.repoToken}/reveal`],
    ['DELETE', `/repos/${a.repo}/tokens/${a.repoToken}`],
    ['GET', `/repos/${b.repo}/tokens/${a.repoToken}/reveal`],
    ['DELETE', `/repos/${b.repo}/tokens/${a.repoToken}`],
    ['GET', `/repos/${a.repo}/snippets`],
    ['DELETE', `/tokens/${a.accessToken}`],
    ['POST', '/tokens', { name: 'into-alice', scopes: ['read'], repositoryId: a.repo }],
  ];

  for (const [who, session] of [
    ['with an ID token', () => bob],
    ['with an admin access token', () => bobToken],
  ] as const) {
    it(`answers 404 on every route with Alice's ids, ${who}`, async () => {
      for (const [method, path, body] of routesOnAlicesIds()) {
        const answer = await session().call(method, path, body);
        expect({ route: `${method} ${path}`, status: answer.status }).toEqual({ route: `${method} ${path}`, status: 404 });
      }
    });
  }

  it("never lists Alice's objects in Bob's lists, and Alice still has everything", async () => {
    for (const session of [bob, bobToken]) {
      const workspaces = JSON.stringify((await session.call('GET', '/workspaces')).body);
      expect(workspaces).toContain(b.workspace);
      expect(workspaces).not.toContain(a.workspace);
      const repos = JSON.stringify((await session.call('GET', '/repos')).body);
      expect(repos).toContain(b.repo);
      expect(repos).not.toContain(a.repo);
      expect(JSON.stringify((await session.call('GET', `/workspaces/${b.workspace}/repos`)).body)).not.toContain(a.repo);
      expect(JSON.stringify((await session.call('GET', '/tokens')).body)).not.toContain(a.accessToken);
      expect(JSON.stringify((await session.call('GET', `/repos/${b.repo}/tokens`)).body)).not.toContain(a.repoToken);
    }
    expect((await alice.call('GET', `/workspaces/${a.workspace}`)).body).toMatchObject({ repositoryCount: 1 });
    expect((await alice.call('GET', `/repos/${a.repo}/tokens`)).body.map((t: { id: string }) => t.id)).toEqual([a.repoToken]);
    expect((await alice.call('GET', '/tokens')).body.map((t: { id: string }) => t.id)).toEqual([a.accessToken]);
    expect((await alice.call('GET', '/usage/summary')).status).toBe(200);
  });
});
