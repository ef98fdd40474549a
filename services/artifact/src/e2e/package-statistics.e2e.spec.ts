import { readFile, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeb, buildRpm, dnf, dnfRoot, startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { waitFor } from '@packyard/testing/wait-for';
import { scratchDir } from './pipeline-fixture';

// A package's page and its download statistics through the API, with the downloads made by
// real HTTP clients of the apt/yum edge (two tokens, two versions); another user's ids are
// not found.

let packyard: RunningPackyard;
let alice: ApiSession;
let bob: ApiSession;
let work = '';
let workspaceId = '';
let debRepo = '';
let rpmRepo = '';
const ids: Record<string, string> = {};
const today = new Date().toISOString().slice(0, 10);

async function upload(repositoryId: string, distribution: string, file: string): Promise<string> {
  const form = new FormData();
  form.set('distribution', distribution);
  form.set('file', new Blob([await readFile(file)]), basename(file));
  const response = await fetch(`${packyard.url}/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload?wait=published`, { method: 'POST', headers: { authorization: `Bearer ${alice.bearer}` }, body: form });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** fetches the package file from the edge as apt would: the pool path its Packages index names */
async function downloadDeb(token: string, name: string, version: string) {
  const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
  const base = `${packyard.url}/deb/stats/tools/debian`;
  const index = await (await fetch(`${base}/dists/bookworm/main/binary-amd64/Packages`, { headers: auth })).text();
  const stanza = index.split('\n\n').find((entry) => entry.includes(`Package: ${name}\n`) && entry.includes(`Version: ${version}\n`))!;
  const response = await fetch(`${base}/${/^Filename: (.+)$/m.exec(stanza)![1]}`, { headers: auth });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

const packagePath = (repositoryId: string, packageId: string) => `/workspaces/${workspaceId}/repos/${repositoryId}/packages/${packageId}`;

beforeAll(async () => {
  work = await scratchDir();
  packyard = await startPackyard();
  [alice, bob] = [await registerUser(packyard), await registerUser(packyard)];
  workspaceId = (await alice.call('POST', '/workspaces', { name: 'Stats', slug: 'stats', description: '' })).body.id;
  debRepo = (await alice.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'tools', kind: 'DEB' })).body.id;
  rpmRepo = (await alice.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'yum', kind: 'RPM' })).body.id;
  const files = { 'usr/bin/stats-hello': '#!/bin/sh\necho hello\n', 'etc/stats-hello.conf': 'x=1\n' };
  ids.deb1 = await upload(debRepo, 'debian/bookworm', await buildDeb({ name: 'stats-hello', version: '1.0', arch: 'all', depends: 'libc6 (>= 2.34), bash | dash', files, fields: [['Recommends', 'curl'], ['Homepage', 'https://example.com/hello']] }, work));
  ids.deb2 = await upload(debRepo, 'debian/bookworm', await buildDeb({ name: 'stats-hello', version: '2.0', arch: 'all', files }, work));
  ids.rpm = await upload(rpmRepo, 'el/9', await buildRpm({ name: 'stats-tool', version: '1.2', release: '1', arch: 'noarch', requires: ['bash >= 4.0'], provides: ['stats-cli = 1.2'], files: ['/usr/bin/stats-tool', '/usr/share/stats-tool/'] }, work));
}, 300_000);

afterAll(async () => {
  await packyard?.dispose();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('package details', () => {
  it('shows what a .deb says: description, relations, facts, its files as dpkg lists them, checksums, versions and distributions', async () => {
    const answer = await alice.call('GET', packagePath(debRepo, ids.deb1));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      kind: 'DEB',
      package: { id: ids.deb1, name: 'stats-hello', version: '1.0', distribution: 'debian/bookworm' },
      summary: 'stats-hello test package',
      description: 'built by the Packyard test kit.',
      relations: [
        { relation: 'Depends', items: ['libc6 (>= 2.34)', 'bash | dash'] },
        { relation: 'Recommends', items: ['curl'] },
      ],
      files: ['/etc/stats-hello.conf', '/usr/bin/stats-hello', '/usr/share/doc/stats-hello/README'],
      filesTotal: 3,
      filesNote: null,
      versions: [{ id: ids.deb2, version: '2.0' }, { id: ids.deb1, version: '1.0' }],
      distributions: ['debian/bookworm'],
    });
    expect(answer.body.facts).toEqual(expect.arrayContaining([{ name: 'Homepage', value: 'https://example.com/hello' }, { name: 'Section', value: 'misc' }]));
    // the digests of the stored file are the ones apt checks in the Packages index
    const auth = { authorization: `Basic ${Buffer.from(`${(await alice.call('POST', `/repos/${debRepo}/tokens`, { name: 'checksums' })).body.token}:`).toString('base64')}` };
    const index = await (await fetch(`${packyard.url}/deb/stats/tools/debian/dists/bookworm/main/binary-amd64/Packages`, { headers: auth })).text();
    const stanza = index.split('\n\n').find((entry) => entry.includes('Version: 1.0\n'))!;
    expect(stanza).toContain(`SHA256: ${answer.body.checksums.sha256}`);
    expect(stanza).toContain(`SHA1: ${answer.body.checksums.sha1}`);
    expect(stanza).toContain(`MD5sum: ${answer.body.checksums.md5}`);
  });

  it('shows what an .rpm says: Requires and Provides as rpm prints them, its files, SHA-256 of the signed file', async () => {
    const answer = await alice.call('GET', packagePath(rpmRepo, ids.rpm));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ kind: 'RPM', summary: 'stats-tool test package', files: ['/usr/bin/stats-tool'], filesTotal: 1, checksums: { md5: null, sha1: null } });
    const requires = answer.body.relations.find((relation: { relation: string }) => relation.relation === 'Requires').items;
    const provides = answer.body.relations.find((relation: { relation: string }) => relation.relation === 'Provides').items;
    expect(requires).toContain('bash >= 4.0');
    expect(provides).toEqual(expect.arrayContaining(['stats-cli = 1.2', 'stats-tool = 1.2-1']));
    // and the digest is the one primary.xml gives the served (signed) file
    const token = (await alice.call('POST', `/repos/${rpmRepo}/tokens`, { name: 'rpm' })).body.token;
    const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const base = `${packyard.url}/rpm/stats/yum/el/9`;
    const repomd = await (await fetch(`${base}/repodata/repomd.xml`, { headers: auth })).text();
    const primaryHref = /<data type="primary">[\s\S]*?<location href="([^"]+)"/.exec(repomd)![1];
    const primary = gunzipSync(Buffer.from(await (await fetch(`${base}/${primaryHref}`, { headers: auth })).arrayBuffer())).toString();
    expect(primary).toContain(`<checksum type="sha256" pkgid="YES">${answer.body.checksums.sha256}</checksum>`);
  });


  it("installs an older .rpm by the package page's form, name-version (version = [epoch:]version-release), with dnf", async () => {
    const older = await upload(rpmRepo, 'el/9', await buildRpm({ name: 'stats-pin', version: '1.0', release: '1', arch: 'noarch' }, work));
    await upload(rpmRepo, 'el/9', await buildRpm({ name: 'stats-pin', version: '1.1', release: '1', arch: 'noarch' }, work));
    const { package: pkg } = (await alice.call('GET', packagePath(rpmRepo, older))).body;
    expect(pkg.version).toBe('1.0-1');
    const token = (await alice.call('POST', `/repos/${rpmRepo}/tokens`, { name: 'dnf' })).body.token;
    const snippets = (await alice.call('GET', `/repos/${rpmRepo}/snippets`)).body;
    const root = await dnfRoot({ id: 'stats-yum', baseUrl: `${snippets.repositoryUrl}/el/9`, publicKeyUrl: snippets.publicKeyUrl, token });
    try {
      const installed = await dnf(root, ['install', `${pkg.name}-${pkg.version}`]);
      expect(installed.code, installed.stderr).toBe(0);
      const listed = await dnf(root, ['list', '--installed', 'stats-pin']);
      expect(listed.stdout).toMatch(/stats-pin\.noarch\s+1\.0-1\s/);
    } finally {
      await root.cleanup();
    }
  }, 180_000);
});

describe('download statistics', () => {
  let ci = '';
  let web = '';
  beforeAll(async () => {
    const ciToken = (await alice.call('POST', `/repos/${debRepo}/tokens`, { name: 'ci' })).body;
    const webToken = (await alice.call('POST', '/tokens', { name: 'web-fleet', scopes: ['read'] })).body;
    [ci, web] = [ciToken.token, webToken.token];
    await downloadDeb(ci, 'stats-hello', '1.0');
    await downloadDeb(ci, 'stats-hello', '1.0');
    await downloadDeb(web, 'stats-hello', '1.0');
    await downloadDeb(web, 'stats-hello', '2.0');
    // counted once delivery's PackageDownloaded events reached artifact through the outbox
    const counted = async () => (await alice.call('GET', `/workspaces/${workspaceId}/repos/${debRepo}/packages`)).body.items.reduce((sum: number, item: { downloads: number }) => sum + item.downloads, 0);
    await waitFor('the downloads to be counted', async () => ((await counted()) === 4 ? true : undefined), { timeoutMs: 30_000 });
  }, 60_000);

  it('counts a package per day for the window asked, today last', async () => {
    const answer = await alice.call('GET', `${packagePath(debRepo, ids.deb1)}/downloads?days=7`);
    expect(answer.status).toBe(200);
    expect(answer.body.period).toBe('day');
    expect(answer.body.buckets).toHaveLength(7);
    expect(answer.body.buckets.at(-1)).toBe(today);
    expect(answer.body.lines).toEqual([{ key: 'total', label: 'All downloads', total: 3, counts: [0, 0, 0, 0, 0, 0, 3] }]);
  });

  it('splits by token (with their names) and by version of the name', async () => {
    const byToken = await alice.call('GET', `${packagePath(debRepo, ids.deb1)}/downloads?by=token`);
    expect(byToken.body.lines.map(({ label, total }: { label: string; total: number }) => [label, total])).toEqual([['ci', 2], ['web-fleet', 1]]);
    expect(byToken.body.buckets).toHaveLength(30);
    const byVersion = await alice.call('GET', `${packagePath(debRepo, ids.deb1)}/downloads?by=version`);
    expect(byVersion.body.lines.map(({ key, total }: { key: string; total: number }) => [key, total])).toEqual([['1.0', 3], ['2.0', 1]]);
    expect(byVersion.body.total).toBe(4);
  });

  it('counts the last 48 hours per hour', async () => {
    const answer = await alice.call('GET', `${packagePath(debRepo, ids.deb2)}/downloads?period=hour`);
    expect(answer.body.buckets).toHaveLength(48);
    expect(answer.body.buckets.at(-1)).toBe(new Date().toISOString().slice(0, 13));
    expect(answer.body.lines[0].counts.at(-1) + answer.body.lines[0].counts.at(-2)).toBe(1);
  });

  it("sums the user's downloads for the dashboard, with the top packages; another user sees none of them", async () => {
    // apt's four downloads, and the one dnf made installing stats-pin above
    const summary = await waitFor('dnf’s download to be counted too', async () => {
      const answer = await alice.call('GET', '/usage/downloads');
      return answer.body.total === 5 ? answer : undefined;
    });
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({
      workspaces: [{ workspaceId, downloads: 5 }],
      topPackages: [
        { workspaceId, repositoryId: debRepo, packageId: ids.deb2, name: 'stats-hello', downloads: 4 },
        { workspaceId, repositoryId: rpmRepo, name: 'stats-pin', downloads: 1 },
      ],
    });
    expect(summary.body.counts.at(-1)).toBe(5);
    expect((await bob.call('GET', '/usage/downloads')).body).toMatchObject({ total: 0, topPackages: [], workspaces: [] });
  });

  it('refuses a bad question with 400, and answers 404 for another user\'s package', async () => {
    for (const query of ['by=tokens', 'days=0', 'days=91', 'period=week']) {
      const answer = await alice.call('GET', `${packagePath(debRepo, ids.deb1)}/downloads?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.message).toBeTruthy();
    }
    expect((await bob.call('GET', `${packagePath(debRepo, ids.deb1)}/downloads`)).status).toBe(404);
    expect((await bob.call('GET', packagePath(debRepo, ids.deb1))).status).toBe(404);
    expect((await alice.call('GET', packagePath(debRepo, 'no-such-package'))).status).toBe(404);
  });
});
