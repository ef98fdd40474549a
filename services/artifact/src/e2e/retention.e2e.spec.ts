import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { buildDeb } from '@packyard/testing/packages/deb.builder';
import { internalClients, publishedFile, scratchDir, upload } from './pipeline-fixture';

// Retention through the API against the single-node program: the policy runs after every
// upload and keeps exactly N versions (in dpkg's order) in the list and the published index;
// a dry run lists what would go; a recent download through the edge protects a version.

let packyard: RunningPackyard;
let session: ApiSession;
let internal: ReturnType<typeof internalClients>;
let workspace: { id: string; slug: string };
let work: string;

const createRepository = async (name: string) => {
  const repository = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name, kind: 'DEB' })).body;
  return { id: repository.id as string, name, path: `/workspaces/${workspace.id}/repos/${repository.id}` };
};
const versionsIn = async (path: string) => ((await session.call('GET', `${path}/packages?size=100`)).body.items as { version: string }[]).map((p) => p.version).sort();
const uploadVersion = async (path: string, name: string, version: string) => {
  const bytes = await readFile(await buildDeb({ name, version, arch: 'all' }, work));
  expect((await upload(packyard, session, path, { name: `${name}.deb`, bytes }, 'debian/bookworm')).status).toBe(201);
};
async function eventually<T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

beforeAll(async () => {
  packyard = await startPackyard();
  internal = internalClients(packyard);
  session = await registerUser(packyard);
  work = await scratchDir();
  workspace = (await session.call('POST', '/workspaces', { name: 'Retention', slug: `retention-${Date.now()}` })).body;
});

afterAll(async () => {
  internal?.close();
  await packyard?.dispose();
});

describe('retention', () => {
  it('keeps exactly the newest N versions after each upload, in the list and in the published index', async () => {
    const repository = await createRepository('nightly');
    expect(await session.call('PUT', `${repository.path}/retention`, { keepVersions: 2, keepDownloadedDays: 0 })).toMatchObject({ status: 200, body: { keepVersions: 2, keepDownloadedDays: 0 } });
    for (const version of ['1.0', '1.10', '1.9', '2.0']) await uploadVersion(repository.path, 'nightly-build', version);
    await uploadVersion(repository.path, 'other-tool', '0.1');

    const kept = await eventually('retention to run', () => versionsIn(repository.path), (versions) => versions.length === 3);
    expect(kept).toEqual(['0.1', '1.10', '2.0']);
    const index = await eventually(
      'the index to drop the old versions',
      async () => (await publishedFile(packyard, await internal.current(repository.id, 'debian/bookworm'), 'dists/bookworm/main/binary-amd64/Packages')).toString(),
      (text) => !/^Version: 1\.9$/m.test(text),
    );
    const versionsOf = (name: string) =>
      index
        .split('\n\n')
        .filter((stanza) => new RegExp(`^Package: ${name}$`, 'm').test(stanza))
        .map((stanza) => /^Version: (.+)$/m.exec(stanza)![1]);
    expect(versionsOf('nightly-build').sort()).toEqual(['1.10', '2.0']);
  });

  it('lists what would go in a dry run, deletes it on demand, and validates the policy', async () => {
    const repository = await createRepository('manual');
    expect((await session.call('GET', `${repository.path}/retention`)).body).toEqual({ keepVersions: 0, keepDownloadedDays: 0 });
    expect((await session.call('PUT', `${repository.path}/retention`, { keepVersions: 0, keepDownloadedDays: 0 })).status).toBe(200);
    for (const version of ['1', '2', '3']) await uploadVersion(repository.path, 'manual-tool', version);
    expect(await versionsIn(repository.path)).toEqual(['1', '2', '3']);

    const invalid = await session.call('PUT', `${repository.path}/retention`, { keepVersions: -1, keepDownloadedDays: 0 });
    expect(invalid.status).toBe(400);
    // the policy is set without a new upload: only the dry run and "apply" act on it
    await session.call('PUT', `${repository.path}/retention`, { keepVersions: 1, keepDownloadedDays: 0 });
    const dryRun = await session.call('POST', `${repository.path}/retention/apply?dryRun=true`);
    expect(dryRun.status).toBe(200);
    expect(dryRun.body.dryRun).toBe(true);
    expect(dryRun.body.packages.map((p: { version: string }) => p.version).sort()).toEqual(['1', '2']);
    expect(await versionsIn(repository.path)).toEqual(['1', '2', '3']);

    const applied = await session.call('POST', `${repository.path}/retention/apply`);
    expect(applied.body.packages.map((p: { version: string }) => p.version).sort()).toEqual(['1', '2']);
    expect(await versionsIn(repository.path)).toEqual(['3']);

    const stranger = await registerUser(packyard);
    expect((await stranger.call('GET', `${repository.path}/retention`)).status).toBe(404);
    expect((await stranger.call('POST', `${repository.path}/retention/apply`)).status).toBe(404);
  });

  it('never deletes a version downloaded within the protected days', async () => {
    const repository = await createRepository('downloaded');
    await uploadVersion(repository.path, 'popular', '1.0');
    const { token } = (await session.call('POST', `/repos/${repository.id}/tokens`, { name: 'machine' })).body;
    const packages = (await publishedFile(packyard, await internal.current(repository.id, 'debian/bookworm'), 'dists/bookworm/main/binary-amd64/Packages')).toString();
    const poolPath = /^Filename: (.+)$/m.exec(packages)![1];
    const download = await fetch(`${packyard.url}/deb/${workspace.slug}/${repository.name}/debian/${poolPath}`, { headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` } });
    expect(download.status).toBe(200);
    await download.arrayBuffer();
    await eventually('the download to be counted', async () => (await session.call('GET', `${repository.path}/packages`)).body.items[0].downloads, (n) => n === 1);

    await session.call('PUT', `${repository.path}/retention`, { keepVersions: 1, keepDownloadedDays: 7 });
    await uploadVersion(repository.path, 'popular', '2.0');
    expect((await session.call('POST', `${repository.path}/retention/apply?dryRun=true`)).body.packages).toEqual([]);
    await session.call('PUT', `${repository.path}/retention`, { keepVersions: 1, keepDownloadedDays: 0 });
    expect((await session.call('POST', `${repository.path}/retention/apply?dryRun=true`)).body.packages.map((p: { version: string }) => p.version)).toEqual(['1.0']);
    expect(await versionsIn(repository.path)).toEqual(['1.0', '2.0']);
  });
});
