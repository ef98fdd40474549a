import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { buildDeb } from '@packyard/testing/packages/deb.builder';
import { buildRpm } from '@packyard/testing/packages/rpm.builder';
import { craftDeb, maliciousDebs, validControlText } from '@packyard/testing/packages/deb-crafting';
import { maliciousRpms } from '@packyard/testing/packages/rpm-crafting';
import { internalClients, join, publishedFile, run, scratchDir, storedFiles, upload, writeFile } from './pipeline-fixture';

let packyard: RunningPackyard;
let session: ApiSession;
let internal: ReturnType<typeof internalClients>;
let debRepo: { id: string; path: string };
let rpmRepo: { id: string; path: string };
let work: string;

beforeAll(async () => {
  // a deleted repository is purged a few seconds after its deletion (the default grace is 7 days)
  packyard = await startPackyard({ env: { DELETION_GRACE_S: '5', PURGE_CHECK_INTERVAL_S: '1' } });
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

  it('refuses crafted packages with 400 and stores nothing', async () => {
    const before = await storedFiles(packyard);
    const debTotal = (await session.call('GET', `${debRepo.path}/packages`)).body.total;
    for (const [name, make] of Object.entries(maliciousDebs)) {
      const answer = await upload(packyard, session, debRepo.path, { name: `${name}.deb`, bytes: await make() }, 'ubuntu/noble', { wait: false });
      expect({ name, status: answer.status }).toEqual({ name, status: 400 });
      expect(answer.body.message).toMatch(/^Invalid package: /);
    }
    for (const [name, make] of Object.entries(maliciousRpms)) {
      const answer = await upload(packyard, session, rpmRepo.path, { name: `${name}.rpm`, bytes: make() }, 'el/9', { wait: false });
      expect({ name, status: answer.status }).toEqual({ name, status: 400 });
    }
    expect((await session.call('GET', `${debRepo.path}/packages`)).body.total).toBe(debTotal);
    expect(await storedFiles(packyard)).toEqual(before);
  });

  it('answers 413 for an upload over 100 MiB and stores nothing', async () => {
    const before = await storedFiles(packyard);
    const answer = await upload(packyard, session, debRepo.path, { name: 'huge.deb', bytes: new Uint8Array(100 * 1024 * 1024 + 1) }, 'ubuntu/noble', { wait: false });
    expect(answer.status).toBe(413);
    expect(answer.body.message).toBe('File must be smaller than 100 MB');
    expect(await storedFiles(packyard)).toEqual(before);
  });

  it('says what is wrong with the extension and the distribution', async () => {
    const bytes = await craftDeb({ control: validControlText('fine') });
    const wrongKind = await upload(packyard, session, debRepo.path, { name: 'fine.rpm', bytes }, 'ubuntu/noble', { wait: false });
    expect(wrongKind).toMatchObject({ status: 400, body: { message: 'File must be a .deb package' } });
    const rpmWrongKind = await upload(packyard, session, rpmRepo.path, { name: 'fine.deb', bytes }, 'el/9', { wait: false });
    expect(rpmWrongKind).toMatchObject({ status: 400, body: { message: 'File must be a .rpm package' } });
    const missing = await upload(packyard, session, debRepo.path, { name: 'fine.deb', bytes }, undefined, { wait: false });
    expect(missing).toMatchObject({ status: 400, body: { message: 'Distribution is required for upload' } });
    const unknown = await upload(packyard, session, debRepo.path, { name: 'fine.deb', bytes }, 'el/9', { wait: false });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^Unknown distribution "el\/9" for a DEB repository/);
  });

  it('refuses a duplicate with 409 but takes the same package for another distribution', async () => {
    const bytes = await craftDeb({ control: validControlText('twice', '1.0-1', 'all') });
    expect((await upload(packyard, session, debRepo.path, { name: 'twice.deb', bytes }, 'debian/any-version')).status).toBe(201);
    const again = await upload(packyard, session, debRepo.path, { name: 'twice.deb', bytes }, 'debian/any-version', { wait: false });
    expect(again.status).toBe(409);
    expect((await upload(packyard, session, debRepo.path, { name: 'twice.deb', bytes }, 'ubuntu/jammy')).status).toBe(201);
    // any-version reaches every debian version; Architecture: all reaches every binary index
    const bookworm = await internal.current(debRepo.id, 'debian/bookworm');
    expect((await publishedFile(packyard, bookworm, 'dists/bookworm/main/binary-arm64/Packages')).toString()).toMatch(/^Package: twice$/m);
  });

  it('deletes a package from every index, frees its file, and takes uploads from a publish-scoped account token', async () => {
    const token = (await session.call('POST', '/tokens', { name: 'ci', scopes: ['publish'] })).body.token as string;
    const ci = session.as(token);
    const bytes = await craftDeb({ control: validControlText('short-lived', '1.0-1', 'amd64') });
    const uploaded = await upload(packyard, ci, debRepo.path, { name: 'short-lived.deb', bytes }, 'any-distro/any-version');
    expect(uploaded.status).toBe(201);
    const kali = () => internal.current(debRepo.id, 'kali/kali-rolling');
    expect((await publishedFile(packyard, await kali(), 'dists/kali-rolling/main/binary-amd64/Packages')).toString()).toMatch(/^Package: short-lived$/m);
    const blobs = await storedFiles(packyard);

    expect((await ci.call('DELETE', `${debRepo.path}/packages/${uploaded.body.id}`)).status).toBe(204);
    expect((await session.call('GET', `${debRepo.path}/packages?q=short-lived`)).body.total).toBe(0);
    expect((await session.call('DELETE', `${debRepo.path}/packages/${uploaded.body.id}`)).status).toBe(404);
    const freed = blobs.filter((file) => !file.startsWith('.') && !(file.startsWith('indices/')));
    expect((await storedFiles(packyard)).filter((file) => freed.includes(file)).length).toBe(freed.length - 1);
    await expect.poll(async () => (await publishedFile(packyard, await kali(), 'dists/kali-rolling/main/binary-amd64/Packages')).toString(), { timeout: 10_000 }).not.toMatch(/short-lived/);
  });

  it('keeps a deleted repository’s packages and index files through its grace period, and frees them at its purge', async () => {
    const ofRepository = async () => (await storedFiles(packyard)).filter((file) => file.startsWith(`packages/${rpmRepo.id}/`) || file.startsWith(`indices/${rpmRepo.id}/`));
    const stored = await ofRepository();
    expect(stored.length).toBeGreaterThan(0);
    expect((await session.call('DELETE', rpmRepo.path)).status).toBe(204);
    expect(await ofRepository()).toEqual(stored);
    await expect.poll(ofRepository, { timeout: 30_000 }).toEqual([]);
  });
});
