import { createChannel, createClient, Metadata, Status } from 'nice-grpc';
import { CALLER_METADATA_KEY, serviceCaller } from '@packyard/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { apiSession, registerUser, type ApiSession } from '@packyard/testing/api-session';

// Workspaces, repositories and the usage summary over HTTP, as the console calls them.
describe('workspaces, repositories and usage API', () => {
  let packyard: RunningPackyard;
  let alice: ApiSession;
  beforeAll(async () => {
    packyard = await startPackyard({ env: { PLAN_STORAGE_LIMIT_BYTES: '5000', PLAN_EGRESS_LIMIT_BYTES: '7000' } });
    alice = await registerUser(packyard);
  });
  afterAll(() => packyard?.dispose());

  const uniqueSlug = (base: string) => `${base}-${Math.random().toString(36).slice(2, 8)}`;

  it('refuses every route without a bearer token (401)', async () => {
    const anonymous = apiSession(packyard, '');
    for (const [method, path] of [
      ['GET', '/workspaces'],
      ['POST', '/workspaces'],
      ['GET', '/repos'],
      ['GET', '/usage/summary'],
      ['DELETE', '/workspaces/x'],
      ['GET', '/workspaces/x/repos'],
      ['POST', '/workspaces/x/repos'],
      ['GET', '/repos/x/tokens'],
      ['POST', '/repos/x/tokens'],
      ['GET', '/repos/x/tokens/y/reveal'],
      ['GET', '/tokens'],
      ['POST', '/tokens'],
      ['DELETE', '/tokens/x'],
    ]) {
      expect((await anonymous.call(method, path, method === 'POST' ? { name: 'x' } : undefined)).status, `${method} ${path}`).toBe(401);
    }
    expect((await apiSession(packyard, 'pyd_at_not-a-token').call('GET', '/workspaces')).status).toBe(401);
  });

  it('creates a workspace with the slug derived from the name, lists and gets it', async () => {
    const name = `Acme Tools ${Math.random().toString(36).slice(2, 6)}!`;
    const created = await alice.call('POST', '/workspaces', { name, slug: '', description: 'Internal tools' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, description: 'Internal tools', repositoryCount: 0, storageBytesUsed: 0, bandwidthBytesMonth: 0 });
    expect(created.body.slug).toMatch(/^acme-tools-[a-z0-9]+$/);
    expect(Date.parse(created.body.createdAt)).not.toBeNaN();

    const list = await alice.call('GET', '/workspaces');
    expect(list.status).toBe(200);
    expect(list.body.workspaces.map((w: { id: string }) => w.id)).toContain(created.body.id);
    const got = await alice.call('GET', `/workspaces/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
  });

  it('answers 400 for a blank name or a slug outside the pattern, and 409 for a taken slug', async () => {
    const blank = await alice.call('POST', '/workspaces', { name: '   ', slug: 'fine' });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toBe('Workspace name is required');
    for (const slug of ['Upper', 'trailing-', '-leading', 'under_score', 'a b']) {
      const bad = await alice.call('POST', '/workspaces', { name: 'Bad slug', slug });
      expect(bad.status, slug).toBe(400);
      expect(bad.body.message).toContain('Only lowercase letters, numbers, and hyphens allowed');
    }
    const slug = uniqueSlug('taken');
    expect((await alice.call('POST', '/workspaces', { name: 'First', slug })).status).toBe(201);
    // slugs are global: they are part of every public repository URL
    const bob = await registerUser(packyard);
    const clash = await bob.call('POST', '/workspaces', { name: 'Second', slug });
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({ status: 409, message: `The slug "${slug}" is already taken`, details: {} });
  });

  it('lets exactly one of concurrent creations with one slug, or one repository name, succeed', async () => {
    const slug = uniqueSlug('race');
    const workspaces = await Promise.all(Array.from({ length: 5 }, (_, i) => alice.call('POST', '/workspaces', { name: `Race ${i}`, slug })));
    expect(workspaces.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const workspace = workspaces.find((answer) => answer.status === 201)!.body;
    const repos = await Promise.all(Array.from({ length: 5 }, () => alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'contested' })));
    expect(repos.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos`)).body).toHaveLength(1);
  });

  it('documents its routes in the OpenAPI document', async () => {
    const { paths } = await (await fetch(`${packyard.url}/api/openapi.json`)).json();
    for (const path of ['/api/v1/workspaces', '/api/v1/workspaces/{id}', '/api/v1/workspaces/{workspaceId}/repos', '/api/v1/workspaces/{workspaceId}/repos/{id}', '/api/v1/repos', '/api/v1/usage/summary']) {
      expect(Object.keys(paths)).toContain(path);
    }
  });

  it('creates repositories with defaults, lists them per workspace and for the user, and counts them', async () => {
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Repos', slug: uniqueSlug('repos') })).body;
    const deb = await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'tools' });
    expect(deb.status).toBe(201);
    expect(deb.body).toMatchObject({ name: 'tools', kind: 'DEB', codename: 'stable', component: 'main', packageCount: 0, sizeBytes: 0, workspaceId: workspace.id });
    const rpm = await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'el-tools', kind: 'RPM', codename: 'ignored', component: 'ignored' });
    expect(rpm.status).toBe(201);
    expect(rpm.body).toMatchObject({ kind: 'RPM', codename: '', component: '' });

    const list = await alice.call('GET', `/workspaces/${workspace.id}/repos`);
    expect(list.status).toBe(200);
    expect(list.body.map((r: { name: string }) => r.name)).toEqual(['tools', 'el-tools']);
    const all = await alice.call('GET', '/repos');
    expect(all.body.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining([deb.body.id, rpm.body.id]));
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos/${deb.body.id}`)).body).toEqual(deb.body);
    expect((await alice.call('GET', `/workspaces/${workspace.id}`)).body.repositoryCount).toBe(2);
  });

  it('answers 400 for bad repository input, 409 for a name taken in the workspace, 404 for unknown ids', async () => {
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Rules', slug: uniqueSlug('rules') })).body;
    const path = `/workspaces/${workspace.id}/repos`;
    expect((await alice.call('POST', path, { name: '  ' })).body).toMatchObject({ status: 400, message: 'Repository name is required' });
    const spaced = await alice.call('POST', path, { name: 'My Repo' });
    expect(spaced.status).toBe(400);
    expect(spaced.body.message).toMatch(/only contain lowercase letters, digits, "\.", "_" and "-"/);
    expect((await alice.call('POST', path, { name: 'ok', kind: 'APK' })).body).toMatchObject({ status: 400, message: 'Repository kind must be DEB or RPM' });
    expect((await alice.call('POST', path, { name: 'ok', codename: 'bad codename' })).status).toBe(400);

    expect((await alice.call('POST', path, { name: 'same' })).status).toBe(201);
    expect((await alice.call('POST', path, { name: 'same', kind: 'RPM' })).status).toBe(409);
    // the same name in another workspace is fine
    const other = (await alice.call('POST', '/workspaces', { name: 'Other', slug: uniqueSlug('other') })).body;
    expect((await alice.call('POST', `/workspaces/${other.id}/repos`, { name: 'same' })).status).toBe(201);

    expect((await alice.call('GET', '/workspaces/no-such-id')).status).toBe(404);
    expect((await alice.call('GET', '/workspaces/no-such-id/repos')).status).toBe(404);
    expect((await alice.call('POST', '/workspaces/no-such-id/repos', { name: 'x' })).status).toBe(404);
    expect((await alice.call('GET', `${path}/no-such-repo`)).status).toBe(404);
    expect((await alice.call('DELETE', `${path}/no-such-repo`)).status).toBe(404);
    expect((await alice.call('DELETE', '/workspaces/no-such-id')).status).toBe(404);
  });

  it('deletes a repository, then a workspace with everything in it, and frees the slug', async () => {
    const slug = uniqueSlug('doomed');
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Doomed', slug })).body;
    const first = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'first' })).body;
    const second = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'second' })).body;

    expect((await alice.call('DELETE', `/workspaces/${workspace.id}/repos/${first.id}`)).status).toBe(204);
    expect((await alice.call('GET', `/workspaces/${workspace.id}/repos/${first.id}`)).status).toBe(404);
    expect((await alice.call('DELETE', `/workspaces/${workspace.id}/repos/${first.id}`)).status).toBe(404);

    // as the console sends it: a JSON content type and no body
    const consoleDelete = await fetch(`${packyard.url}/api/v1/workspaces/${workspace.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice.bearer}`, 'content-type': 'application/json' },
    });
    expect(consoleDelete.status).toBe(204);
    expect((await alice.call('GET', `/workspaces/${workspace.id}`)).status).toBe(404);
    expect((await alice.call('GET', '/workspaces')).body.workspaces.map((w: { id: string }) => w.id)).not.toContain(workspace.id);
    // the repositories go through WorkspaceDeleted → RepositoryDeleted, shortly after
    await expect.poll(async () => (await alice.call('GET', '/repos')).body.map((r: { id: string }) => r.id), { timeout: 15_000 }).not.toContain(second.id);
    expect((await alice.call('POST', '/workspaces', { name: 'Reborn', slug })).status).toBe(201);
  });

  it('resolves a public repository path for delivery over gRPC', async () => {
    const slug = uniqueSlug('public');
    const workspace = (await alice.call('POST', '/workspaces', { name: 'Public', slug })).body;
    const repo = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'el', kind: 'RPM' })).body;
    const channel = createChannel(packyard.grpcAddress);
    try {
      // as delivery calls it, with a caller assertion signed by the installation's key
      const asDelivery = { metadata: Metadata({ [CALLER_METADATA_KEY]: await packyard.callerAssertions().assert(serviceCaller('delivery')) }) };
      const repositories = createClient(RepositoryServiceDefinition, channel, { '*': asDelivery });
      expect(await repositories.resolveRepository({ kind: 'rpm', workspaceSlug: slug, repositoryName: 'el' })).toMatchObject({
        repositoryId: repo.id,
        workspaceId: workspace.id,
        kind: 'RPM',
        name: 'el',
      });
      await expect(repositories.resolveRepository({ kind: 'deb', workspaceSlug: slug, repositoryName: 'el' })).rejects.toMatchObject({ code: Status.NOT_FOUND });
      await expect(repositories.resolveRepository({ kind: 'rpm', workspaceSlug: 'nobody', repositoryName: 'el' })).rejects.toMatchObject({ code: Status.NOT_FOUND });
    } finally {
      channel.close();
    }
  });

  it('shows the usage summary with the plan limits from the configuration', async () => {
    const summary = await alice.call('GET', '/usage/summary');
    expect(summary.status).toBe(200);
    expect(summary.body).toEqual({ storageBytesUsed: 0, storageBytesLimit: 5000, egressBytesUsed: 0, egressBytesLimit: 7000 });
  });
});
