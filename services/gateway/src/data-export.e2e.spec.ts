import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeb, startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';

describe('Export Data: GET /api/v1/user/export', () => {
  let packyard: RunningPackyard;
  let alice: ApiSession;
  let bob: ApiSession;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'packyard-export-'));
    packyard = await startPackyard();
    [alice, bob] = await Promise.all([registerUser(packyard), registerUser(packyard)]);
  });
  afterAll(async () => {
    await packyard?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const exportAs = (session: ApiSession) => fetch(`${packyard.url}/api/v1/user/export`, { headers: { authorization: `Bearer ${session.bearer}` } });

  it("downloads the user's profile, API key names, workspaces, repositories and packages' metadata, and nobody else's", async () => {
    await alice.call('PUT', '/user/profile', { name: 'Alice', theme: 'dark' });
    const key = (await alice.call('POST', '/user/tokens', { name: 'laptop', scopes: ['read'] })).body;
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Export Team', slug: `export-${Date.now()}` })).body;
    const apt = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt' })).body;
    const yum = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'yum', kind: 'RPM' })).body;
    await bob.call('POST', '/workspaces', { name: 'Bob Only', slug: `bob-${Date.now()}` });

    const debPath = await buildDeb({ name: 'export-hello', version: '1.2.3', arch: 'amd64' }, dir);
    const bytes = readFileSync(debPath);
    const form = new FormData();
    form.append('distribution', 'debian/bookworm');
    form.append('file', new Blob([bytes]), basename(debPath));
    const uploaded = await fetch(`${packyard.url}/api/v1/workspaces/${workspace.id}/repos/${apt.id}/upload`, { method: 'POST', headers: { authorization: `Bearer ${alice.bearer}` }, body: form });
    expect(uploaded.status).toBeLessThan(300);
    await expect.poll(async () => (await alice.call('GET', `/workspaces/${workspace.id}/repos/${apt.id}`)).body.packageCount, { timeout: 10_000 }).toBe(1);

    const response = await exportAs(alice);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="packyard-export-\d{4}-\d{2}-\d{2}\.json"$/);
    const data = await response.json();
    expect(Date.parse(data.exportedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(data.profile).toMatchObject({ email: alice.email, name: 'Alice', theme: 'dark' });
    expect(data.apiKeys).toEqual([{ id: key.id, name: 'laptop', scopes: ['read'], createdAt: key.createdAt, lastUsed: null }]);
    expect(JSON.stringify(data)).not.toContain(key.token);
    expect(data.workspaces).toHaveLength(1);
    const [exported] = data.workspaces;
    expect(exported).toMatchObject({ id: workspace.id, name: 'Export Team', slug: workspace.slug, repositoryCount: 2 });
    expect(exported.repositories.map((repository: { name: string }) => repository.name).sort()).toEqual(['apt', 'yum']);
    const exportedApt = exported.repositories.find((repository: { id: string }) => repository.id === apt.id);
    expect(exportedApt).toMatchObject({ kind: 'DEB', codename: 'stable', component: 'main', packageCount: 1 });
    expect(exportedApt.packages).toEqual([
      expect.objectContaining({
        name: 'export-hello',
        version: '1.2.3',
        architecture: 'amd64',
        distribution: 'debian/bookworm',
        sizeBytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      }),
    ]);
    expect(exported.repositories.find((repository: { id: string }) => repository.id === yum.id).packages).toEqual([]);
    expect(JSON.stringify(data)).not.toContain('Bob Only');
  });

  it('needs a signed-in caller, and is documented', async () => {
    expect((await fetch(`${packyard.url}/api/v1/user/export`)).status).toBe(401);
    const doc = await (await fetch(`${packyard.url}/api/openapi.json`)).json();
    expect(doc.paths).toHaveProperty(['/api/v1/user/export', 'get']);
  });
});
