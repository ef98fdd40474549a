import { describe, expect, it } from 'vitest';
import { parseDistribution } from '@packyard/formats';
import type { Advisory } from '@packyard/formats/recorded-distributions';
import type { PublishablePackage } from '../packages/publishable-package';
import { advisoriesFor, buildGeneration, IndexEntryCache } from './generation.builder';
import type { PublishedRepository } from './publication-layout';
const repository: PublishedRepository = { id: 'r1', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme', ownerId: 'u1', name: 'tools', codename: 'bookworm', component: 'main' };
const digests = { md5: '0'.repeat(32), sha1: '1'.repeat(40), sha256: '2'.repeat(64), sha512: '3'.repeat(128) };

const binary = (name: string, extension: 'deb' | 'udeb' | 'ddeb'): PublishablePackage => ({
  id: `${name}-id`, repositoryId: 'r1', kind: 'DEB', distribution: 'debian/bookworm', name, version: '1.0', architecture: 'amd64',
  filename: `${name}_1.0_amd64.${extension}`, sizeBytes: 10, sha256: digests.sha256, blobKey: `packages/r1/${name}`, uploadedAt: '2026-11-24T00:00:00.000Z',
  indexEntryJson: JSON.stringify({ control: [{ name: 'Package', value: name }, { name: 'Version', value: '1.0' }, { name: 'Architecture', value: 'amd64' }], file: { size: 10, ...digests } }),
  sourceFiles: [],
});

const source: PublishablePackage = {
  id: 'src-id', repositoryId: 'r1', kind: 'DEB', distribution: 'debian/bookworm', name: 'hello', version: '1.0-1', architecture: 'source',
  filename: 'hello_1.0-1.dsc', sizeBytes: 700, sha256: 'a'.repeat(64), blobKey: 'packages/r1/dsc', uploadedAt: '2026-11-24T00:00:00.000Z',
  indexEntryJson: JSON.stringify({
    source: {
      control: [{ name: 'Format', value: '3.0 (quilt)' }, { name: 'Source', value: 'hello' }, { name: 'Version', value: '1.0-1' }],
      files: [{ name: 'hello_1.0-1.dsc', size: 700, ...digests }, { name: 'hello_1.0.orig.tar.gz', size: 100, ...digests }],
    },
  }),
  sourceFiles: [{ filename: 'hello_1.0.orig.tar.gz', sizeBytes: 100, sha256: 'b'.repeat(64), blobKey: 'packages/r1/orig' }],
};

describe('a DEB generation', () => {
  it('indexes each kind of package in its own index, lists every index in the Release, and serves every file of a source package', async () => {
    const built = await buildGeneration(repository, { distro: 'debian', version: 'bookworm' }, [binary('hello', 'deb'), binary('di-hello', 'udeb'), binary('hello-dbgsym', 'ddeb'), source], new IndexEntryCache(), new Date(0));
    const text = (path: string) => built.metadata.find((file) => file.path === `dists/bookworm/${path}`)!.bytes.toString('utf8');
    expect(text('main/binary-amd64/Packages')).toMatch(/^Package: hello$/m);
    expect(text('main/binary-amd64/Packages')).not.toMatch(/di-hello|dbgsym/);
    expect(text('main/debian-installer/binary-amd64/Packages')).toMatch(/^Filename: pool\/main\/d\/di-hello\/debian\/bookworm\/di-hello_1\.0_amd64\.udeb$/m);
    expect(text('main/debug/binary-amd64/Packages')).toMatch(/^Filename: pool\/main\/h\/hello-dbgsym\/debian\/bookworm\/hello-dbgsym_1\.0_amd64\.ddeb$/m);
    expect(text('main/source/Sources')).toMatch(/^Package: hello\nFormat: 3\.0 \(quilt\)\nVersion: 1\.0-1\nDirectory: pool\/main\/h\/hello\/debian\/bookworm\nFiles:\n/);
    expect(text('contrib/source/Sources')).toBe('');
    // debian-installer and debug indices only in the repository's own component, and only when it holds such packages
    expect(built.metadata.some((file) => file.path.startsWith('dists/bookworm/contrib/debug/'))).toBe(false);
    const plain = await buildGeneration(repository, { distro: 'debian', version: 'bookworm' }, [binary('hello', 'deb'), source], new IndexEntryCache(), new Date(0));
    expect(plain.metadata.map((file) => file.path).filter((path) => /debian-installer|debug/.test(path))).toEqual([]);
    const release = built.signables[0].bytes.toString('utf8');
    for (const path of ['main/source/Sources.xz', 'non-free/source/Sources', 'main/debian-installer/binary-arm64/Packages.gz', 'main/debug/binary-amd64/Packages']) {
      expect(release).toMatch(new RegExp(` ${path.replaceAll('.', '\\.')}$`, 'm'));
    }
    expect(built.aliases.map((alias) => alias.path)).toContain(`dists/bookworm/main/source/by-hash/SHA256/${built.metadata.find((file) => file.path === 'dists/bookworm/main/source/Sources')!.sha256}`);
    expect(built.pool.filter(({ path }) => path.startsWith('pool/main/h/hello/'))).toEqual([
      { path: 'pool/main/h/hello/debian/bookworm/hello_1.0_amd64.deb', file: { blobKey: 'packages/r1/hello', size: 10, sha256: digests.sha256 } },
      { path: 'pool/main/h/hello/debian/bookworm/hello_1.0-1.dsc', file: { blobKey: 'packages/r1/dsc', size: 700, sha256: 'a'.repeat(64) } },
      { path: 'pool/main/h/hello/debian/bookworm/hello_1.0.orig.tar.gz', file: { blobKey: 'packages/r1/orig', size: 100, sha256: 'b'.repeat(64) } },
    ]);
  });
});

const pkg = (name: string, distribution: string) => ({ name, epoch: 0, version: '2', release: '1', arch: 'noarch', uploadDistribution: parseDistribution(distribution) });
const advisory = (id: string, issuedAt: string, packages: Advisory['packages']): Advisory => ({
  id, repositoryId: 'r-1', type: 'security', severity: '', title: id, description: '', issuedAt, updatedAt: issuedAt, references: [], packages, createdAt: issuedAt,
});

describe('advisoriesFor', () => {
  const advisories = [
    advisory('B', '2026-02-01T00:00:00.000Z', [pkg('one', 'el/9'), pkg('two', 'el/any-version')]),
    advisory('A', '2026-01-01T00:00:00.000Z', [pkg('three', 'any-distro/any-version')]),
    advisory('C', '2026-03-01T00:00:00.000Z', [pkg('four', 'fedora/39')]),
  ];

  it('gives a distribution the advisories whose packages it shows, each with those packages only, oldest first', () => {
    expect(advisoriesFor({ distro: 'el', version: '9' }, advisories).map((item) => [item.id, item.packages.map((p) => p.name)])).toEqual([['A', ['three']], ['B', ['one', 'two']]]);
    expect(advisoriesFor({ distro: 'el', version: '8' }, advisories).map((item) => [item.id, item.packages.map((p) => p.name)])).toEqual([['A', ['three']], ['B', ['two']]]);
    expect(advisoriesFor({ distro: 'opensuse', version: 'tumbleweed' }, advisories).map((item) => item.id)).toEqual(['A']);
  });
});
