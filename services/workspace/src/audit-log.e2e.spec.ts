import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeb, startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';

// The workspace audit log from the event log, through the API of the single-node program:
// an upload with an account token, a promotion and a token revocation by the signed-in user,
// and a deletion by the retention policy, each with its actor and the client's address.

interface Entry {
  action: string;
  actorKind: string;
  actor: string;
  address: string;
  target: string;
  reason: string;
  tokenId: string;
  at: string;
}

let packyard: RunningPackyard;
let session: ApiSession;
let workspaceId: string;
let work: string;

const upload = async (bearer: string, repositoryId: string, file: string) => {
  const form = new FormData();
  form.set('distribution', 'debian/bookworm');
  form.set('file', new Blob([await readFile(file)]), basename(file));
  const response = await fetch(`${packyard.url}/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload?wait=published`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` }, body: form });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string };
};
const audit = async (query = '') => (await session.call('GET', `/workspaces/${workspaceId}/audit${query}`)).body as { items: Entry[]; total: number };

beforeAll(async () => {
  packyard = await startPackyard();
  session = await registerUser(packyard);
  work = await mkdtemp(join(tmpdir(), 'packyard-audit-e2e-'));
  workspaceId = (await session.call('POST', '/workspaces', { name: 'Audited', slug: 'audited', description: '' })).body.id;
});

afterAll(async () => {
  await packyard?.dispose();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('workspace audit log', () => {
  it('shows an upload, a promotion, a retention deletion and a token revocation with their actors and address', async () => {
    const staging = (await session.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'staging', kind: 'DEB' })).body;
    const production = (await session.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'production', kind: 'DEB' })).body;
    const ci = (await session.call('POST', '/tokens', { name: 'ci', scopes: ['read', 'publish'] })).body;
    await session.call('PUT', `/workspaces/${workspaceId}/repos/${production.id}/retention`, { keepVersions: 1, keepDownloadedDays: 0 });

    const first = await upload(ci.token, staging.id, await buildDeb({ name: 'audited-app', version: '1.0', arch: 'all' }, work));
    expect((await session.call('POST', `/workspaces/${workspaceId}/repos/${staging.id}/packages/${first.id}/promote?wait=published`, { targetRepositoryId: production.id })).status).toBe(201);
    await upload(ci.token, production.id, await buildDeb({ name: 'audited-app', version: '2.0', arch: 'all' }, work));
    const machine = (await session.call('POST', `/repos/${production.id}/tokens`, { name: 'web-1' })).body;
    expect((await session.call('DELETE', `/repos/${production.id}/tokens/${machine.id}`)).status).toBe(204);

    const deadline = Date.now() + 30_000;
    let log = await audit();
    while (!log.items.some((e) => e.action === 'token.revoked') || !log.items.some((e) => e.reason === 'retention')) {
      if (Date.now() > deadline) throw new Error(`the audit log did not fill in time: ${JSON.stringify(log.items, null, 1)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      log = await audit();
    }
    const find = (action: string, target: RegExp) => log.items.find((entry) => entry.action === action && target.test(entry.target));
    const you = session.email;

    expect(find('package.uploaded', /^audited-app 1\.0 \(all, debian\/bookworm\) in staging$/)).toMatchObject({ actorKind: 'token', actor: `token ci (${you})`, tokenId: ci.id, address: '127.0.0.1' });
    expect(find('package.promoted', /^audited-app 1\.0 .* in production from staging$/)).toMatchObject({ actorKind: 'user', actor: you, address: '127.0.0.1' });
    expect(find('package.uploaded', /^audited-app 2\.0 .* in production$/)).toMatchObject({ actor: `token ci (${you})` });
    expect(find('package.deleted', /^audited-app 1\.0 \(all, debian\/bookworm\) in production$/)).toMatchObject({ actorKind: 'system', actor: 'retention policy', reason: 'retention' });
    expect(find('token.revoked', /^repository token web-1 of production$/)).toMatchObject({ actorKind: 'user', actor: you, address: '127.0.0.1' });
    expect(find('repository.created', /^staging$/)).toMatchObject({ actor: you });
    // newest first
    const times = log.items.map((entry) => entry.at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('filters by action and actor, pages, and exports as JSON lines', async () => {
    const promoted = await audit('?action=package.promoted');
    expect(promoted.total).toBe(1);
    expect(promoted.items.map((e) => e.action)).toEqual(['package.promoted']);
    const byToken = await audit('?actor=token%20ci');
    expect(byToken.total).toBe(2);
    expect(byToken.items.every((e) => e.actorKind === 'token')).toBe(true);

    const all = await audit();
    const firstPage = await audit('?size=2&page=0');
    const secondPage = await audit('?size=2&page=1');
    expect(firstPage.total).toBe(all.total);
    expect([...firstPage.items, ...secondPage.items]).toEqual(all.items.slice(0, 4));

    const response = await fetch(`${packyard.url}/api/v1/workspaces/${workspaceId}/audit/export`, { headers: { authorization: `Bearer ${session.bearer}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await response.text()).trimEnd().split('\n').map((line) => JSON.parse(line) as Entry);
    expect(lines).toHaveLength(all.total);
    expect(lines[0]).toEqual(all.items[0]);

    expect((await session.call('GET', `/workspaces/${workspaceId}/audit?action=package.exploded`)).status).toBe(400);
    const stranger = await registerUser(packyard);
    expect((await stranger.call('GET', `/workspaces/${workspaceId}/audit`)).status).toBe(404);
  });

  it('documents the lifecycle API in the OpenAPI document', async () => {
    const { paths } = await (await fetch(`${packyard.url}/api/openapi.json`)).json();
    for (const [path, method] of [
      ['/api/v1/workspaces/{id}/audit', 'get'],
      ['/api/v1/workspaces/{id}/audit/export', 'get'],
      ['/api/v1/workspaces/{workspaceId}/repos/{repoId}/packages/{packageId}/copy', 'post'],
      ['/api/v1/workspaces/{workspaceId}/repos/{repoId}/packages/{packageId}/promote', 'post'],
      ['/api/v1/workspaces/{workspaceId}/repos/{repoId}/retention', 'put'],
      ['/api/v1/workspaces/{workspaceId}/repos/{repoId}/retention/apply', 'post'],
    ] as const) {
      expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
  });
});
