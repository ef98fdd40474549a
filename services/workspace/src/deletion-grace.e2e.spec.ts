import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aptGet, buildDeb, freshDebianRoot, runInRoot, startPackyard, waitFor, type DebianRoot, type RunningPackyard } from '@packyard/testing';
import { apiSession, registerUser, type ApiSession } from '@packyard/testing/api-session';

// A deleted workspace or repository is hidden at once and can be restored whole during the
// grace period (DELETION_GRACE_S); after it, a sweep purges it for good. One program keeps the
// default grace of 7 days (restorations, with apt), another a grace of a few seconds (purges,
// also across a kill -9).

const SHORT_GRACE_ENV = { DELETION_GRACE_S: '4', PURGE_CHECK_INTERVAL_S: '1' };

/** the stored files under a blob prefix of the program's data folder (emptied folders may stay) */
const blobsUnder = (packyard: RunningPackyard, prefix: string) => {
  const dir = join(packyard.dataDir, 'blobs', prefix);
  return existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length : 0;
};

async function upload(packyard: RunningPackyard, session: ApiSession, workspaceId: string, repositoryId: string, file: string) {
  const form = new FormData();
  form.set('distribution', 'debian/bookworm');
  form.set('file', new Blob([await readFile(file)]), basename(file));
  const response = await fetch(`${packyard.url}/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload?wait=published`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.bearer}` },
    body: form,
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { id: string };
}

let packagesDir: string;
beforeAll(async () => {
  packagesDir = await mkdtemp(join(tmpdir(), 'packyard-grace-'));
});
afterAll(async () => {
  if (packagesDir) await rm(packagesDir, { recursive: true, force: true });
});

describe('restoring deleted repositories and workspaces (default grace period)', () => {
  let packyard: RunningPackyard;
  let alice: ApiSession;
  let bob: ApiSession;
  let root: DebianRoot | undefined;
  beforeAll(async () => {
    packyard = await startPackyard();
    [alice, bob] = [await registerUser(packyard), await registerUser(packyard)];
  }, 60_000);
  afterAll(async () => {
    await root?.cleanup();
    await packyard?.dispose();
  });

  it('a deleted repository stops serving apt, and once restored apt installs from it again with the same token and key', async () => {
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Grace', slug: `grace-${Date.now()}` })).body;
    const repository = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'tools', codename: 'bookworm' })).body;
    const { token } = (await alice.call('POST', `/repos/${repository.id}/tokens`, { name: 'server' })).body;
    await upload(packyard, alice, workspace.id, repository.id, await buildDeb({ name: 'packyard-restored', version: '1.0.0', arch: 'all' }, packagesDir));
    const { setupCommands } = (await alice.call('GET', `/repos/${repository.id}/snippets?codename=bookworm&component=main`)).body;
    root = await freshDebianRoot();
    expect((await runInRoot(root, setupCommands.oneLiner.replace('YOUR_TOKEN', token))).code).toBe(0);
    expect((await aptGet(root, ['install', '-y', 'packyard-restored'])).code).toBe(0);

    const deletedAt = Date.now();
    expect((await alice.call('DELETE', `/workspaces/${workspace.id}/repos/${repository.id}`)).status).toBe(204);
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos/${repository.id}`)).status).toBe(404);
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos`)).body).toEqual([]);
    const [listed] = (await alice.call('GET', `/workspaces/${workspace.id}/repos/deleted`)).body;
    expect(listed).toMatchObject({ id: repository.id, name: 'tools', packageCount: 1 });
    // the default grace period: 7 days
    expect(Date.parse(listed.purgeAt) - deletedAt).toBeGreaterThan(7 * 24 * 3600 * 1000 - 60_000);
    // apt and the token stop working at once
    await waitFor('apt to be refused', async () => ((await aptGet(root!, ['update'])).code !== 0 ? true : undefined), { timeoutMs: 30_000 });
    expect((await alice.call('GET', `/repos/${repository.id}/tokens`)).status).toBe(404);
    // another user cannot see or restore it
    expect((await bob.call('POST', `/workspaces/${workspace.id}/repos/${repository.id}/restore`)).status).toBe(404);
    expect((await bob.call('GET', `/workspaces/${workspace.id}/repos/deleted`)).status).toBe(404);

    const restored = await alice.call('POST', `/workspaces/${workspace.id}/repos/${repository.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: repository.id, name: 'tools', packageCount: 1 });
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos/deleted`)).body).toEqual([]);
    expect((await alice.call('GET', `/repos/${repository.id}/tokens`)).body.map((t: { name: string }) => t.name)).toEqual(['server']);
    // the same sources, auth and keyring the installer wrote: nothing on the machine changed
    await waitFor('apt to be served again', async () => ((await aptGet(root!, ['update'])).code === 0 ? true : undefined), { timeoutMs: 30_000 });
    await runInRoot(root, 'apt-get clean');
    const reinstall = await aptGet(root, ['install', '--reinstall', '-y', 'packyard-restored']);
    expect(reinstall.code, reinstall.stdout + reinstall.stderr).toBe(0);
    expect(reinstall.stdout).toMatch(/Get:\d+ .*packyard-restored/);
  }, 300_000);

  it('keeps the name free during the grace period: restoring one whose name was taken since answers 409', async () => {
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Names', slug: `names-${Date.now()}` })).body;
    const first = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt' })).body;
    expect((await alice.call('DELETE', `/workspaces/${workspace.id}/repos/${first.id}`)).status).toBe(204);
    const second = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt' })).body;
    expect(second.id).not.toBe(first.id);
    const refused = await alice.call('POST', `/workspaces/${workspace.id}/repos/${first.id}/restore`);
    expect(refused).toMatchObject({
      status: 409,
      body: { status: 409, message: 'A repository named "apt" has been created in this workspace since this one was deleted; delete it to restore this one' },
    });
    expect((await alice.call('DELETE', `/workspaces/${workspace.id}/repos/${second.id}`)).status).toBe(204);
    expect((await alice.call('POST', `/workspaces/${workspace.id}/repos/${first.id}/restore`)).status).toBe(200);
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos`)).body.map((r: { id: string }) => r.id)).toEqual([first.id]);
    // a live repository is not restorable; an unknown id neither
    expect((await alice.call('POST', `/workspaces/${workspace.id}/repos/${first.id}/restore`)).status).toBe(404);
    expect((await alice.call('POST', `/workspaces/${workspace.id}/repos/no-such-id/restore`)).status).toBe(404);
  });

  it('restores a deleted workspace with the repositories deleted with it, not one deleted before; its slug is free meanwhile', async () => {
    const slug = `whole-${Date.now()}`;
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Whole', slug })).body;
    const kept = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'kept' })).body;
    const earlier = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'earlier' })).body;
    await upload(packyard, alice, workspace.id, kept.id, await buildDeb({ name: 'packyard-whole', version: '1.0.0', arch: 'all' }, packagesDir));
    expect((await alice.call('DELETE', `/workspaces/${workspace.id}/repos/${earlier.id}`)).status).toBe(204);

    expect((await alice.call('DELETE', `/workspaces/${workspace.id}`)).status).toBe(204);
    expect((await alice.call('GET', `/workspaces/${workspace.id}`)).status).toBe(404);
    expect((await alice.call('GET', '/workspaces')).body.workspaces.map((w: { id: string }) => w.id)).not.toContain(workspace.id);
    await expect.poll(async () => (await alice.call('GET', '/repos')).body.map((r: { id: string }) => r.id), { timeout: 15_000 }).not.toContain(kept.id);
    const deleted = (await alice.call('GET', '/workspaces/deleted')).body.workspaces;
    expect(deleted).toEqual([expect.objectContaining({ id: workspace.id, name: 'Whole', slug, repositoryCount: 1 })]);
    expect((await bob.call('GET', '/workspaces/deleted')).body.workspaces).toEqual([]);
    expect((await bob.call('POST', `/workspaces/${workspace.id}/restore`)).status).toBe(404);

    // the slug is free: a new workspace takes it, and the deleted one cannot come back under it
    const taker = (await alice.call('POST', '/workspaces', { name: 'Taker', slug })).body;
    const refused = await alice.call('POST', `/workspaces/${workspace.id}/restore`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`The slug "${slug}" has been taken by another workspace since this one was deleted; delete that workspace to restore this one`);
    expect((await alice.call('DELETE', `/workspaces/${taker.id}`)).status).toBe(204);

    const restored = await alice.call('POST', `/workspaces/${workspace.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: workspace.id, slug, repositoryCount: 1 });
    await expect.poll(async () => (await alice.call('GET', `/workspaces/${workspace.id}/repos`)).body.map((r: { id: string }) => r.id), { timeout: 15_000 }).toEqual([kept.id]);
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos/${kept.id}/packages`)).body.total).toBe(1);
    // the repository deleted before the workspace is still restorable on its own
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos/deleted`)).body.map((r: { id: string }) => r.id)).toEqual([earlier.id]);
    expect((await alice.call('GET', '/workspaces/deleted')).body.workspaces.map((w: { id: string }) => w.id)).toEqual([taker.id]);
  });
});

describe('purging after the grace period (DELETION_GRACE_S=4)', () => {
  let packyard: RunningPackyard;
  let alice: ApiSession;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-purge-'));
    packyard = await startPackyard({ env: SHORT_GRACE_ENV, dataDir });
    alice = await registerUser(packyard);
  }, 60_000);
  afterAll(async () => {
    await packyard?.dispose();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a workspace deleted, restored, then deleted again is purged after the grace period: its blobs are gone', async () => {
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Purged', slug: `purged-${Date.now()}` })).body;
    const repository = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt' })).body;
    await upload(packyard, alice, workspace.id, repository.id, await buildDeb({ name: 'packyard-purged', version: '1.0.0', arch: 'all' }, packagesDir));
    expect(blobsUnder(packyard, `packages/${repository.id}`)).toBeGreaterThan(0);
    expect(blobsUnder(packyard, `indices/${repository.id}`)).toBeGreaterThan(0);
    await expect.poll(async () => (await alice.call('GET', '/usage/summary')).body.storageBytesUsed, { timeout: 10_000 }).toBeGreaterThan(0);

    expect((await alice.call('DELETE', `/workspaces/${workspace.id}`)).status).toBe(204);
    expect((await alice.call('POST', `/workspaces/${workspace.id}/restore`)).status).toBe(200);
    await expect.poll(async () => (await alice.call('GET', `/workspaces/${workspace.id}/repos`)).body.length, { timeout: 15_000 }).toBe(1);
    // the restoration cancelled the first purge: the repository outlives that grace period
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos/${repository.id}/packages`)).body.total).toBe(1);
    expect(blobsUnder(packyard, `packages/${repository.id}`)).toBeGreaterThan(0);

    expect((await alice.call('DELETE', `/workspaces/${workspace.id}`)).status).toBe(204);
    await waitFor('the workspace to be purged', async () => ((await alice.call('GET', '/workspaces/deleted')).body.workspaces.length === 0 ? true : undefined), { timeoutMs: 60_000 });
    await waitFor('its package and index blobs to be freed', async () =>
      blobsUnder(packyard, `packages/${repository.id}`) === 0 && blobsUnder(packyard, `indices/${repository.id}`) === 0 ? true : undefined,
    { timeoutMs: 60_000 });
    await expect.poll(async () => (await alice.call('GET', '/usage/summary')).body.storageBytesUsed, { timeout: 20_000 }).toBe(0);
    expect((await alice.call('POST', `/workspaces/${workspace.id}/restore`)).status).toBe(404);
    expect(packyard.output()).toContain('deleted workspace purged after its grace period');
  }, 180_000);

  it('a purge due while the program was killed (-9) happens after its restart', async () => {
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Killed', slug: `killed-${Date.now()}` })).body;
    const repository = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt' })).body;
    await upload(packyard, alice, workspace.id, repository.id, await buildDeb({ name: 'packyard-killed', version: '1.0.0', arch: 'all' }, packagesDir));
    expect((await alice.call('DELETE', `/workspaces/${workspace.id}/repos/${repository.id}`)).status).toBe(204);
    // killed at once, long before the grace period ends: no timer survives this
    await packyard.stop('SIGKILL');
    expect(blobsUnder(packyard, `packages/${repository.id}`)).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    packyard = await startPackyard({ env: SHORT_GRACE_ENV, dataDir });
    alice = apiSession(packyard, alice.bearer);
    await waitFor('the repository to be purged after the restart', async () =>
      blobsUnder(packyard, `packages/${repository.id}`) === 0 && blobsUnder(packyard, `indices/${repository.id}`) === 0 ? true : undefined,
    { timeoutMs: 60_000 });
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos/deleted`)).body).toEqual([]);
    expect((await alice.call('POST', `/workspaces/${workspace.id}/repos/${repository.id}/restore`)).status).toBe(404);
    expect(packyard.output()).toContain('deleted repository purged after its grace period');
  }, 180_000);
});
