import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { buildDeb } from '@packyard/testing/packages/deb.builder';
import { internalClients, publishedFile, scratchDir, storedFiles, upload } from './pipeline-fixture';

// Copy and promote through the API: the target publishes the package from the very blob the
// source stored (nothing is uploaded or stored twice), the source keeps or loses it, and the
// rules of an upload (duplicates, kinds, tenancy) hold.

let packyard: RunningPackyard;
let session: ApiSession;
let internal: ReturnType<typeof internalClients>;
let workspaceId: string;
let work: string;

const createRepository = async (name: string, kind = 'DEB') => {
  const repository = (await session.call('POST', `/workspaces/${workspaceId}/repos`, { name, kind })).body;
  return { id: repository.id as string, path: `/workspaces/${workspaceId}/repos/${repository.id}` };
};
const listed = async (path: string) => (await session.call('GET', `${path}/packages`)).body.items as { id: string; name: string; version: string; distribution: string; sizeBytes: number }[];

beforeAll(async () => {
  packyard = await startPackyard();
  internal = internalClients(packyard);
  session = await registerUser(packyard);
  work = await scratchDir();
  workspaceId = (await session.call('POST', '/workspaces', { name: 'Copies', slug: `copies-${Date.now()}` })).body.id;
});

afterAll(async () => {
  internal?.close();
  await packyard?.dispose();
});

describe('copying and promoting packages between repositories', () => {
  it('copies without storing the file again: the target publishes the same bytes, the source keeps its package', async () => {
    const staging = await createRepository('staging');
    const production = await createRepository('production');
    const bytes = await readFile(await buildDeb({ name: 'hello-copy', version: '1.0.0', arch: 'amd64' }, work));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const uploaded = (await upload(packyard, session, staging.path, { name: 'hello-copy.deb', bytes }, 'debian/bookworm')).body;
    const before = await storedFiles(packyard);

    const copy = await session.call('POST', `${staging.path}/packages/${uploaded.id}/copy?wait=published`, { targetRepositoryId: production.id });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: 'hello-copy', version: '1.0.0', distribution: 'debian/bookworm', sizeBytes: bytes.length });
    expect(copy.body.id).not.toBe(uploaded.id);

    expect((await listed(staging.path)).map((p) => p.id)).toEqual([uploaded.id]);
    expect((await listed(production.path)).map((p) => p.id)).toEqual([copy.body.id]);
    // same blob: the only new files are production's index files, no second copy of the package
    const added = (await storedFiles(packyard)).filter((file) => !before.includes(file));
    expect(added.filter((file) => file.includes(sha256))).toEqual([]);

    const publication = await internal.current(production.id, 'debian/bookworm');
    const packages = (await publishedFile(packyard, publication, 'dists/bookworm/main/binary-amd64/Packages')).toString('utf8');
    const poolPath = /^Filename: (.+)$/m.exec(packages)![1];
    expect(poolPath).toMatch(/hello-copy_1\.0\.0_amd64\.deb$/);
    expect(await publishedFile(packyard, publication, poolPath)).toEqual(bytes);

    const again = await session.call('POST', `${staging.path}/packages/${uploaded.id}/copy`, { targetRepositoryId: production.id });
    expect(again).toMatchObject({ status: 409, body: { message: 'Package hello-copy 1.0.0 (amd64) already exists in debian/bookworm' } });
  });

  it('copies into another distribution when asked, and checks it like an upload', async () => {
    const source = await createRepository('multi');
    const target = await createRepository('multi-target');
    const bytes = await readFile(await buildDeb({ name: 'hello-anywhere', version: '2.0.0', arch: 'all' }, work));
    const uploaded = (await upload(packyard, session, source.path, { name: 'hello-anywhere.deb', bytes }, 'debian/bookworm')).body;
    const copy = await session.call('POST', `${source.path}/packages/${uploaded.id}/copy?wait=published`, { targetRepositoryId: target.id, distribution: 'ubuntu/noble' });
    expect(copy).toMatchObject({ status: 201, body: { distribution: 'ubuntu/noble' } });
    const wrong = await session.call('POST', `${source.path}/packages/${uploaded.id}/copy`, { targetRepositoryId: target.id, distribution: 'el/9' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/^Unknown distribution "el\/9" for a DEB repository/);
  });

  it('promotes: the package moves to the target and leaves the source; its blob outlives the source repository', async () => {
    const staging = await createRepository('promote-from');
    const production = await createRepository('promote-to');
    const bytes = await readFile(await buildDeb({ name: 'hello-promoted', version: '3.0.0', arch: 'amd64' }, work));
    const uploaded = (await upload(packyard, session, staging.path, { name: 'hello-promoted.deb', bytes }, 'debian/bookworm')).body;

    const promoted = await session.call('POST', `${staging.path}/packages/${uploaded.id}/promote?wait=published`, { targetRepositoryId: production.id });
    expect(promoted.status).toBe(201);
    expect(await listed(staging.path)).toEqual([]);
    expect((await listed(production.path)).map((p) => p.name)).toEqual(['hello-promoted']);
    const stagingIndex = (await publishedFile(packyard, await internal.current(staging.id, 'debian/bookworm'), 'dists/bookworm/main/binary-amd64/Packages')).toString();
    expect(stagingIndex).not.toContain('hello-promoted');

    // the blob lives under the source repository's prefix: deleting that repository must not take it
    expect((await session.call('DELETE', staging.path)).status).toBe(204);
    const publication = await internal.current(production.id, 'debian/bookworm');
    const packages = (await publishedFile(packyard, publication, 'dists/bookworm/main/binary-amd64/Packages')).toString('utf8');
    const poolPath = /^Filename: (.+)$/m.exec(packages)![1];
    // the deletion's reaction runs from the bus: the file must still be there while it does and after
    for (let look = 0; look < 8; look++) {
      expect(await publishedFile(packyard, publication, poolPath)).toEqual(bytes);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });

  it('refuses another kind of repository (400), another workspace (404) and an unknown package (404)', async () => {
    const deb = await createRepository('kind-deb');
    const rpm = await createRepository('kind-rpm', 'RPM');
    const uploaded = (await upload(packyard, session, deb.path, { name: 'k.deb', bytes: await readFile(await buildDeb({ name: 'hello-kind', version: '1.0', arch: 'all' }, work)) }, 'debian/bookworm')).body;
    const toRpm = await session.call('POST', `${deb.path}/packages/${uploaded.id}/copy`, { targetRepositoryId: rpm.id });
    expect(toRpm).toMatchObject({ status: 400, body: { message: 'A DEB package cannot go to the RPM repository kind-rpm' } });

    const otherWorkspace = (await session.call('POST', '/workspaces', { name: 'Other', slug: `other-${Date.now()}` })).body;
    const foreign = (await session.call('POST', `/workspaces/${otherWorkspace.id}/repos`, { name: 'foreign', kind: 'DEB' })).body;
    expect((await session.call('POST', `${deb.path}/packages/${uploaded.id}/copy`, { targetRepositoryId: foreign.id })).status).toBe(404);

    const stranger = await registerUser(packyard);
    expect((await stranger.call('POST', `${deb.path}/packages/${uploaded.id}/promote`, { targetRepositoryId: deb.id })).status).toBe(404);
    expect((await session.call('POST', `${deb.path}/packages/not-a-package/copy`, { targetRepositoryId: rpm.id })).status).toBe(404);
    expect((await session.call('POST', `${deb.path}/packages/${uploaded.id}/copy`, {})).status).toBe(400);
    expect((await listed(deb.path)).map((p) => p.id)).toEqual([uploaded.id]);
  });
});
