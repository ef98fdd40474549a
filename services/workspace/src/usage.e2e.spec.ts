import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeb, startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';

// Usage follows the other modules' events: an upload grows the repository, the workspace
// and the user's storage; what delivery serves is egress and the token's last use.
describe('usage from uploads, downloads and deletions', () => {
  let packyard: RunningPackyard;
  let alice: ApiSession;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'packyard-usage-'));
    // deleted workspaces are purged (and their storage freed) a second after their deletion
    packyard = await startPackyard({ env: { DELETION_GRACE_S: '1', PURGE_CHECK_INTERVAL_S: '1' } });
    alice = await registerUser(packyard);
  });
  afterAll(async () => {
    await packyard?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** uploads a fresh .deb for ubuntu/noble and returns its bytes */
  async function upload(workspaceId: string, repositoryId: string, name: string) {
    const debPath = await buildDeb({ name, version: '1.0.0', arch: 'amd64' }, dir);
    const bytes = readFileSync(debPath);
    const form = new FormData();
    form.append('distribution', 'ubuntu/noble');
    form.append('file', new Blob([bytes]), basename(debPath));
    const response = await fetch(`${packyard.url}/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.bearer}` },
      body: form,
    });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
    return bytes;
  }

  it('counts an uploaded package in the repository, the workspace and the summary, and serving it as egress', async () => {
    const slug = `usage-${Date.now()}`;
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Usage', slug })).body;
    const repo = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt' })).body;
    const token = (await alice.call('POST', `/repos/${repo.id}/tokens`, { name: 'server' })).body;

    const bytes = await upload(workspace.id, repo.id, 'usage-hello');

    await expect
      .poll(async () => (await alice.call('GET', `/workspaces/${workspace.id}/repos/${repo.id}`)).body, { timeout: 10_000 })
      .toMatchObject({ packageCount: 1, sizeBytes: bytes.length });
    await expect.poll(async () => (await alice.call('GET', `/workspaces/${workspace.id}`)).body.storageBytesUsed, { timeout: 10_000 }).toBe(bytes.length);
    await expect.poll(async () => (await alice.call('GET', '/usage/summary')).body.storageBytesUsed, { timeout: 10_000 }).toBe(bytes.length);

    // apt reads the signed index with the repository token as the Basic user
    const authorization = `Basic ${Buffer.from(`${token.token}:`).toString('base64')}`;
    const inRelease = `${packyard.url}/deb/${slug}/apt/ubuntu/dists/noble/InRelease`;
    let served = 0;
    await expect
      .poll(
        async () => {
          const response = await fetch(inRelease, { headers: { authorization } });
          const body = await response.arrayBuffer();
          if (response.status === 200) served += body.byteLength;
          return response.status;
        },
        { timeout: 20_000 },
      )
      .toBe(200);
    await expect.poll(async () => (await alice.call('GET', '/usage/summary')).body.egressBytesUsed, { timeout: 10_000 }).toBeGreaterThanOrEqual(served);
    expect((await alice.call('GET', `/workspaces/${workspace.id}`)).body.bandwidthBytesMonth).toBeGreaterThanOrEqual(served);
    const [listed] = (await alice.call('GET', `/repos/${repo.id}/tokens`)).body;
    expect(listed.usageCount).toBeGreaterThanOrEqual(1);
    expect(Date.parse(listed.lastUsedAt)).not.toBeNaN();

    const packages = (await alice.call('GET', `/workspaces/${workspace.id}/repos/${repo.id}/packages`)).body;
    expect((await alice.call('DELETE', `/workspaces/${workspace.id}/repos/${repo.id}/packages/${packages.items[0].id}`)).status).toBeLessThan(300);
    await expect.poll(async () => (await alice.call('GET', '/usage/summary')).body.storageBytesUsed, { timeout: 10_000 }).toBe(0);
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos/${repo.id}`)).body).toMatchObject({ packageCount: 0, sizeBytes: 0 });
  });

  it('frees the storage of a deleted workspace once it is purged: WorkspaceDeleted → WorkspacePurged → RepositoryPurged → PackageDeleted', async () => {
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Cascade', slug: `cascade-${Date.now()}` })).body;
    const repo = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt' })).body;
    const bytes = await upload(workspace.id, repo.id, 'cascade-hello');
    await expect.poll(async () => (await alice.call('GET', '/usage/summary')).body.storageBytesUsed, { timeout: 10_000 }).toBe(bytes.length);
    expect((await alice.call('DELETE', `/workspaces/${workspace.id}`)).status).toBe(204);
    await expect.poll(async () => (await alice.call('GET', '/usage/summary')).body.storageBytesUsed, { timeout: 20_000 }).toBe(0);
  });
});
