import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { runCommand } from '@packyard/testing/clients/run-command';
import { startPackyard, type RunningPackyard } from '@packyard/testing';

// What a revoked token may still do on the apt/yum edge, and for how long; and which HTTP
// Basic credentials the edge takes at all.

let packyard: RunningPackyard;
let alice: ApiSession;
let repoId: string;
let inRelease: string;

const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const edge = async (authorization?: string) => (await fetch(inRelease, { headers: authorization ? { authorization } : {} })).status;

/** revokes, then asks the edge as fast as it can until the token is refused; the milliseconds that took */
async function revocationLatency(authorization: string, revoke: () => Promise<number>): Promise<number> {
  // a verdict in every cache first
  for (let i = 0; i < 5; i++) expect(await edge(authorization)).toBe(200);
  const started = performance.now();
  expect(await revoke()).toBe(204);
  for (;;) {
    if ((await edge(authorization)) === 401) return performance.now() - started;
    if (performance.now() - started > 10_000) throw new Error('still served 10 s after the revocation');
  }
}

beforeAll(async () => {
  packyard = await startPackyard();
  alice = await registerUser(packyard);
  const workspace = (await alice.call('POST', '/workspaces', { name: 'Revocation', slug: `revocation-${Date.now()}` })).body;
  const repo = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt', kind: 'DEB' })).body;
  repoId = repo.id;
  const snippets = (await alice.call('GET', `/repos/${repoId}/snippets`)).body;
  inRelease = `${snippets.repositoryUrl}/ubuntu/dists/noble/InRelease`.replace(/^https?:\/\/[^/]+/, packyard.url);
  const token = (await alice.call('POST', `/repos/${repoId}/tokens`, { name: 'probe' })).body.token;
  // the empty index of a new repository is published a moment after its creation
  for (const deadline = Date.now() + 20_000; (await edge(basic(token))) !== 200; await new Promise((r) => setTimeout(r, 200))) {
    if (Date.now() > deadline) throw new Error(`${inRelease} was not served in time`);
  }
});

afterAll(async () => {
  await packyard?.dispose();
});

describe('revocation on the apt/yum edge', () => {
  it('refuses a revoked repository token within a second', async () => {
    const token = (await alice.call('POST', `/repos/${repoId}/tokens`, { name: 'to-revoke' })).body;
    const ms = await revocationLatency(basic(token.token), async () => (await alice.call('DELETE', `/repos/${repoId}/tokens/${token.id}`)).status);
    console.log(`repository token: revoke → first 401 in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1000);
  });

  it('refuses a revoked account access token within a second', async () => {
    const token = (await alice.call('POST', '/tokens', { name: 'apt-read', scopes: ['read'] })).body;
    const ms = await revocationLatency(basic(token.token), async () => (await alice.call('DELETE', `/tokens/${token.id}`)).status);
    console.log(`account access token: revoke → first 401 in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1000);
  });
});

describe('HTTP Basic on the apt/yum edge', () => {
  /** the status curl gets with `-u <credentials>` */
  const curl = async (credentials: string) => (await runCommand('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-u', credentials, inRelease])).stdout;

  it('takes the token with an empty password (or the token again, what zypper and yum 3 send); any other password is 401', async () => {
    const token = (await alice.call('POST', `/repos/${repoId}/tokens`, { name: 'password-probe' })).body.token;
    expect(await curl(`${token}:`)).toBe('200');
    expect(await curl(`${token}:${token}`)).toBe('200');
    for (const password of ['wrong', 'x', `${token}x`]) expect({ password, status: await curl(`${token}:${password}`) }).toEqual({ password, status: '401' });
    // the password is no second user name: a good token as the password opens nothing either
    expect(await curl(`:${token}`)).toBe('401');
    const refused = await fetch(inRelease, { headers: { authorization: basic(token, 'wrong') } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Basic /);
  });
});
