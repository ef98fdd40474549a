import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { buildDeb } from '@packyard/testing/packages/deb.builder';
import { buildRpm } from '@packyard/testing/packages/rpm.builder';
import { internalClients, join, publishedFile, run, scratchDir, storedFiles, upload, writeFile } from './pipeline-fixture';

let packyard: RunningPackyard;
let session: ApiSession;
let internal: ReturnType<typeof internalClients>;
let debRepo: { id: string; path: string };
let rpmRepo: { id: string; path: string };
let work: string;

beforeAll(async () => {
  packyard = await startPackyard();
  internal = internalClients(packyard);
  session = await registerUser(packyard);
  work = await scratchDir();
  const workspace = (await session.call('POST', '/workspaces', { name: 'Pipeline', slug: `pipeline-${Date.now()}` })).body;
  const deb = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt', kind: 'DEB' })).body;
  const rpm = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'yum', kind: 'RPM' })).body;
  debRepo = { id: deb.id, path: `/workspaces/${workspace.id}/repos/${deb.id}` };
  rpmRepo = { id: rpm.id, path: `/workspaces/${workspace.id}/repos/${rpm.id}` };
});

afterAll(async () => {
  internal?.close();
  await packyard?.dispose();
});

describe('package pipeline through the API', () => {
  it('publishes an uploaded .deb in a signed index that gpgv verifies', async () => {
    const file = await buildDeb({ name: 'hello-pipeline', version: '1.2-3', arch: 'amd64' }, work);
    const bytes = await readFile(file);
    const answer = await upload(packyard, session, debRepo.path, { name: 'whatever-name.deb', bytes }, 'ubuntu/noble');
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name: 'hello-pipeline', version: '1.2-3', architecture: 'amd64', filename: 'hello-pipeline_1.2-3_amd64.deb', sizeBytes: bytes.length, downloads: 0, distribution: 'ubuntu/noble' });

    const listed = await session.call('GET', `${debRepo.path}/packages?q=PIPELINE&page=0&size=20`);
    expect(listed.body).toMatchObject({ total: 1, items: [{ id: answer.body.id, name: 'hello-pipeline' }] });

    const publication = await internal.current(debRepo.id, 'ubuntu/noble');
    const key = join(work, 'key.gpg');
    await writeFile(key, (await internal.signing.getPublicKey({ repositoryId: debRepo.id })).binary);
    await writeFile(join(work, 'InRelease'), await publishedFile(packyard, publication, 'dists/noble/InRelease'));
    await writeFile(join(work, 'Release'), await publishedFile(packyard, publication, 'dists/noble/Release'));
    await writeFile(join(work, 'Release.gpg'), await publishedFile(packyard, publication, 'dists/noble/Release.gpg'));
    await run('gpgv', ['--keyring', key, join(work, 'InRelease')]);
    await run('gpgv', ['--keyring', key, join(work, 'Release.gpg'), join(work, 'Release')]);

    const release = (await readFile(join(work, 'Release'), 'utf8'));
    expect(release).toMatch(/^Acquire-By-Hash: yes$/m);
    expect(release).toMatch(/^Date: .* UTC$/m);
    const packages = (await publishedFile(packyard, publication, 'dists/noble/main/binary-amd64/Packages')).toString('utf8');
    const poolPath = /^Filename: (.+)$/m.exec(packages)![1];
    expect(poolPath).toBe('pool/main/h/hello-pipeline/ubuntu/noble/hello-pipeline_1.2-3_amd64.deb');
    expect(await publishedFile(packyard, publication, poolPath)).toEqual(bytes);
    const gz = publication.files.find((f) => f.path === 'dists/noble/main/binary-amd64/Packages.gz')!;
    expect(release).toContain(` ${gz.sha256} `);
    expect(publication.files.some((f) => f.path === `dists/noble/main/binary-amd64/by-hash/SHA256/${gz.sha256}` && f.blobKey === gz.blobKey)).toBe(true);
    // jammy got nothing from a noble upload, but is published (empty and signed) all the same
    const jammy = (await publishedFile(packyard, await internal.current(debRepo.id, 'ubuntu/jammy'), 'dists/jammy/main/binary-amd64/Packages')).toString();
    expect(jammy).toBe('');
  });

  it('publishes an uploaded .rpm with a repomd.xml.asc that gpg verifies', async () => {
    const file = await buildRpm({ name: 'hello-yum', version: '2.0', release: '1', arch: 'x86_64' }, work);
    const answer = await upload(packyard, session, rpmRepo.path, { name: 'hello-yum.rpm', bytes: await readFile(file) }, 'el/9', { distributionFirst: true });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name: 'hello-yum', version: '2.0-1', architecture: 'x86_64', filename: 'hello-yum-2.0-1.x86_64.rpm', distribution: 'el/9' });

    const publication = await internal.current(rpmRepo.id, 'el/9');
    const home = join(work, 'gnupg');
    await run('mkdir', ['-m', '700', '-p', home]);
    await writeFile(join(work, 'repomd.xml'), await publishedFile(packyard, publication, 'repodata/repomd.xml'));
    await writeFile(join(work, 'repomd.xml.asc'), await publishedFile(packyard, publication, 'repodata/repomd.xml.asc'));
    await writeFile(join(work, 'repomd.xml.key'), await publishedFile(packyard, publication, 'repodata/repomd.xml.key'));
    await run('gpg', ['--homedir', home, '--batch', '--import', join(work, 'repomd.xml.key')]);
    await run('gpg', ['--homedir', home, '--batch', '--verify', join(work, 'repomd.xml.asc'), join(work, 'repomd.xml')]);
    const primary = publication.files.find((f) => /^repodata\/[0-9a-f]{64}-primary\.xml\.gz$/.test(f.path));
    expect(primary).toBeDefined();
    expect(publication.files.some((f) => f.path === 'Packages/el/9/h/hello-yum-2.0-1.x86_64.rpm')).toBe(true);
  });
});
