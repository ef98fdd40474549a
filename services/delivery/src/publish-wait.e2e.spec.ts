import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPT_DESCRIPTORS } from '@packyard/platform';
import { buildDeb, buildRpmBatch, descriptorsOf, freePort, listeningInode, startPackyard, waitFor, type RunningPackyard } from '@packyard/testing';
import { registerUser } from '@packyard/testing/api-session';

// Issue #17 item 5: the 201 of `?wait=published` is a promise that the very next fetch
// through the edge (InRelease → the Packages file it lists, repomd.xml → primary) shows
// the package, upload after upload, with nothing in between.

const DEB_UPLOADS = 50;
const RPM_UPLOADS = 5;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface Repository {
  id: string;
  /** `{origin}/deb|rpm/{workspace}/{name}` */
  url: string;
  /** Basic with a repository token, as apt and dnf send it */
  auth: { authorization: string };
}

/** a fresh user with one workspace on `packyard`, creating repositories and uploading with `?wait=published` */
async function openWorkspace(packyard: RunningPackyard, slug: string) {
  const session = await registerUser(packyard);
  const created = await session.call<{ id: string }>('POST', '/workspaces', { name: slug, slug, description: '' });
  expect(created.status).toBe(201);
  const workspaceId = created.body.id;
  return {
    async createRepository(name: string, kind: 'DEB' | 'RPM'): Promise<Repository> {
      const { status, body } = await session.call<{ id: string }>('POST', `/workspaces/${workspaceId}/repos`, { name, kind, codename: 'bookworm', component: 'main' });
      expect(status).toBe(201);
      const token = await session.call<{ token: string }>('POST', `/repos/${body.id}/tokens`, { name: 'wait-e2e' });
      expect(token.status).toBe(201);
      return { id: body.id, url: `${packyard.url}/${kind === 'DEB' ? 'deb' : 'rpm'}/${slug}/${name}`, auth: { authorization: `Basic ${Buffer.from(`${token.body.token}:`).toString('base64')}` } };
    },
    async upload(repository: Repository, file: string, distribution: string) {
      const form = new FormData();
      form.set('distribution', distribution);
      const bytes = await readFile(file);
      form.set('file', new Blob([bytes]), basename(file));
      const response = await fetch(`${packyard.url}/api/v1/workspaces/${workspaceId}/repos/${repository.id}/upload?wait=published`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session.bearer}` },
        body: form,
      });
      return { status: response.status, body: (await response.json()) as { id: string; name: string; version: string }, sha256: sha256(bytes) };
    },
    deletePackage: (repository: Repository, packageId: string) => session.call('DELETE', `/workspaces/${workspaceId}/repos/${repository.id}/packages/${packageId}`),
    listPackages: (repository: Repository) => session.call<{ items: { id: string }[] }>('GET', `/workspaces/${workspaceId}/repos/${repository.id}/packages`),
  };
}

const edge = async (repository: Repository, path: string) => {
  const response = await fetch(`${repository.url}/${path}`, { headers: repository.auth });
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
};

/** InRelease, then the Packages file it lists by its canonical path, checked against the SHA256 InRelease gives */
const servedPackages = async (repository: Repository, codename = 'bookworm') => {
  const inRelease = (await edge(repository, `debian/dists/${codename}/InRelease`)).toString('utf8');
  const sums = inRelease.slice(inRelease.indexOf('\nSHA256:'));
  const listed = /^ ([0-9a-f]{64}) +\d+ (main\/binary-amd64\/Packages)$/m.exec(sums);
  if (!listed) throw new Error(`InRelease lists no main/binary-amd64/Packages:\n${inRelease}`);
  const packages = await edge(repository, `debian/dists/${codename}/${listed[2]}`);
  expect(sha256(packages), 'the Packages file served is the one InRelease lists').toBe(listed[1]);
  return packages.toString('utf8');
};

/** repomd.xml, then the primary.xml.gz it lists, checked against the checksum repomd gives */
const servedPrimary = async (repository: Repository) => {
  const repomd = (await edge(repository, 'el/9/repodata/repomd.xml')).toString('utf8');
  const primary = /<data type="primary">[\s\S]*?<checksum type="sha256">([0-9a-f]{64})<\/checksum>[\s\S]*?<location href="([^"]+)"/.exec(repomd);
  if (!primary) throw new Error(`repomd.xml lists no primary:\n${repomd}`);
  const compressed = await edge(repository, `el/9/${primary[2]}`);
  expect(sha256(compressed), 'the primary served is the one repomd.xml lists').toBe(primary[1]);
  return gunzipSync(compressed).toString('utf8');
};

describe('?wait=published answers once the edge serves the package', () => {
  let packyard: RunningPackyard;
  let workspace: Awaited<ReturnType<typeof openWorkspace>>;
  let packagesDir: string;

  beforeAll(async () => {
    packyard = await startPackyard();
    workspace = await openWorkspace(packyard, 'acme-wait');
    packagesDir = await mkdtemp(join(tmpdir(), 'packyard-wait-e2e-'));
  }, 60_000);
  afterAll(async () => {
    await packyard?.dispose();
    if (packagesDir) await rm(packagesDir, { recursive: true, force: true });
  });

  it('accepts on the public port through eight descriptors in the one process serving it (EDGE_WORKERS=0, as a cluster\'s delivery replica)', async () => {
    const inode = listeningInode(Number(new URL(packyard.url).port))!;
    await waitFor('the copies of the listening socket', async () => (descriptorsOf(packyard.child.pid!, inode) === ACCEPT_DESCRIPTORS ? true : undefined), { timeoutMs: 10_000, intervalMs: 50 });
  });

  it(`${DEB_UPLOADS} DEB uploads one after another: each 201 is followed by InRelease → Packages listing the package`, async () => {
    const repository = await workspace.createRepository('waited-debs', 'DEB');
    const files = await Promise.all(
      Array.from({ length: DEB_UPLOADS }, (_, index) => buildDeb({ name: `packyard-wait-${index}`, version: `1.0.${index}`, arch: 'amd64', compression: 'gzip' }, packagesDir)),
    );
    const misses: string[] = [];
    for (const [index, file] of files.entries()) {
      const { status, sha256: uploaded } = await workspace.upload(repository, file, 'debian/bookworm');
      expect(status, `upload ${index}`).toBe(201);
      const packages = await servedPackages(repository);
      if (!packages.includes(`Package: packyard-wait-${index}\n`) || !packages.includes(`SHA256: ${uploaded}\n`)) misses.push(`upload ${index}: not in the Packages file served right after its 201`);
    }
    expect(misses).toEqual([]);
  }, 180_000);

  it('the same file again: into a second distribution, and back after its deletion; each 201 is followed by a Packages file listing it', async () => {
    const repository = await workspace.createRepository('waited-again', 'DEB');
    const file = await buildDeb({ name: 'packyard-again', version: '1.0.0', arch: 'amd64', compression: 'gzip' }, packagesDir);
    const first = await workspace.upload(repository, file, 'debian/bookworm');
    expect(first.status).toBe(201);
    // the pool path is shared by every debian/* distribution: the pool file alone says nothing about bullseye's index
    expect((await workspace.upload(repository, file, 'debian/bullseye')).status).toBe(201);
    expect(await servedPackages(repository, 'bullseye')).toContain('Package: packyard-again\n');
    // the generation before the deletion stays readable for clients mid-update, pool file included
    expect((await workspace.deletePackage(repository, first.body.id)).status).toBe(204);
    await waitFor('the deletion to be published', async () => (!(await servedPackages(repository)).includes('Package: packyard-again\n') ? true : undefined));
    expect((await workspace.upload(repository, file, 'debian/bookworm')).status).toBe(201);
    expect(await servedPackages(repository)).toContain('Package: packyard-again\n');
  }, 60_000);

  it(`${RPM_UPLOADS} RPM uploads one after another: each 201 is followed by repomd.xml → primary listing the package`, async () => {
    const repository = await workspace.createRepository('waited-rpms', 'RPM');
    // the repository key (RSA-4096) is made right after creation: rpm uploads are signed with it
    await waitFor('the repository key', async () => ((await fetch(`${repository.url}/gpg.key`, { headers: repository.auth })).status === 200 ? true : undefined), { timeoutMs: 60_000 });
    const files = await buildRpmBatch(
      Array.from({ length: RPM_UPLOADS }, (_, index) => ({ name: `packyard-wait-rpm-${index}`, version: '1.0', release: '1', arch: 'noarch' as const })),
      packagesDir,
    );
    const misses: string[] = [];
    for (const [index, file] of files.entries()) {
      // the served .rpm is signed with the repository key, so its checksum is not the upload's
      const { status } = await workspace.upload(repository, file, 'el/9');
      expect(status, `upload ${index}`).toBe(201);
      const primary = await servedPrimary(repository);
      if (!primary.includes(`<name>packyard-wait-rpm-${index}</name>`)) misses.push(`upload ${index}: not in the primary served right after its 201`);
    }
    expect(misses).toEqual([]);
  }, 120_000);
});

describe('?wait=published that cannot be met answers 202', () => {
  let packyard: RunningPackyard;
  let unreachableReplica: Server;
  let packagesDir: string;

  beforeAll(async () => {
    // a second delivery replica that is down (every connection dropped): the gateway's
    // wait asks every replica, so it can never hear "served" from all of them
    unreachableReplica = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => unreachableReplica.listen(0, '127.0.0.1', resolve));
    const grpcPort = await freePort();
    const downAt = `127.0.0.1:${(unreachableReplica.address() as AddressInfo).port}`;
    packyard = await startPackyard({ env: { GRPC_PORT: String(grpcPort), DELIVERY_GRPC_ADDR: `127.0.0.1:${grpcPort},${downAt}` } });
    packagesDir = await mkdtemp(join(tmpdir(), 'packyard-wait-202-e2e-'));
  }, 60_000);
  afterAll(async () => {
    await packyard?.dispose();
    await new Promise((resolve) => unreachableReplica?.close(resolve));
    if (packagesDir) await rm(packagesDir, { recursive: true, force: true });
  });

  it('after its 30 s, with the package stored and served by the replica that is up', async () => {
    const workspace = await openWorkspace(packyard, 'acme-unmet');
    const repository = await workspace.createRepository('half-down', 'DEB');
    const file = await buildDeb({ name: 'packyard-unmet', version: '1.0.0', arch: 'amd64', compression: 'gzip' }, packagesDir);
    const startedAt = Date.now();
    const { status, body } = await workspace.upload(repository, file, 'debian/bookworm');
    const waitedMs = Date.now() - startedAt;
    expect(status).toBe(202);
    expect(body).toMatchObject({ name: 'packyard-unmet', version: '1.0.0' });
    expect(waitedMs).toBeGreaterThanOrEqual(30_000);
    expect((await workspace.listPackages(repository)).body.items.map((item) => item.id)).toEqual([body.id]);
    expect(await servedPackages(repository)).toContain('Package: packyard-unmet\n');
  }, 90_000);
});
