import { describe, expect, it } from 'vitest';
import type { IndexFile } from '@packyard/proto/packyard/repository/v1/events';
import { DEB_UPLOAD_DISTRIBUTIONS } from '@packyard/formats';
import { readableGenerations, servedFiles, stockedDistributions, type LoadedPublication, type PublicationRecord, type RepositoryRecord, type ServedFile } from './served-file';

const repository: RepositoryRecord = { id: 'r1', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme', name: 'tools', ownerId: 'u1', codename: '', component: '' };
const file = (path: string, sha256: string, isPackage = false): IndexFile => ({ path, blobKey: `b/${sha256}`, size: 1, sha256, contentType: '', package: isPackage });

function publication(generation: number, publishedAt: string, files: IndexFile[]): LoadedPublication {
  return {
    publication: {
      id: `r1|debian/bookworm|${generation}`,
      repositoryId: 'r1',
      distribution: 'debian/bookworm',
      distro: 'debian',
      version: 'bookworm',
      generation,
      publishedAt,
      retainedGenerations: [generation - 1, generation - 2, generation - 3].filter((g) => g > 0),
      manifest: { blobKey: `m/${generation}`, sha256: `m${generation}`, size: 1 },
      packageCount: files.filter((candidate) => candidate.package).length,
    },
    files,
  };
}

const served = (generations: LoadedPublication[], before?: Map<string, ServedFile>) => servedFiles(repository, generations, before);
const lastModified = (files: Map<string, ServedFile>, path: string) => new Date(files.get(`/deb/acme/tools/debian/${path}`)!.lastModifiedMs).toISOString();

describe('Last-Modified of published files', () => {
  it('moves an entry point a second forward when two generations change it within one second', () => {
    const first = publication(1, '2024-03-05T10:00:00.100Z', [file('dists/bookworm/InRelease', 'a')]);
    const second = publication(2, '2024-03-05T10:00:00.900Z', [file('dists/bookworm/InRelease', 'b')]);
    const third = publication(3, '2024-03-05T10:00:00.950Z', [file('dists/bookworm/InRelease', 'c')]);
    expect(lastModified(served([first]), 'dists/bookworm/InRelease')).toBe('2024-03-05T10:00:00.000Z');
    expect(lastModified(served([first, second]), 'dists/bookworm/InRelease')).toBe('2024-03-05T10:00:01.000Z');
    expect(lastModified(served([first, second, third]), 'dists/bookworm/InRelease')).toBe('2024-03-05T10:00:02.000Z');
  });

  it('keeps the date of unchanged entry points and of content-addressed files', () => {
    const first = publication(1, '2024-03-05T10:00:00Z', [file('dists/bookworm/Release', 'a'), file('pool/main/h/hello.deb', 'p', true)]);
    const second = publication(2, '2024-03-05T11:00:00Z', [file('dists/bookworm/Release', 'a'), file('pool/main/h/hello.deb', 'p', true)]);
    expect(lastModified(served([first, second]), 'dists/bookworm/Release')).toBe('2024-03-05T10:00:00.000Z');
    expect(lastModified(served([first, second]), 'pool/main/h/hello.deb')).toBe('2024-03-05T10:00:00.000Z');
  });

  it('keeps the date the edge served a path with while its bytes stay the same, after its first generation is no longer readable', () => {
    const generations = [1, 2, 3, 4, 5].map((g) => publication(g, `2024-03-05T1${g}:00:00Z`, [file('dists/bookworm/contrib/binary-amd64/Packages', 'empty'), file('dists/bookworm/InRelease', `s${g}`)]));
    let files = served(generations.slice(0, 4));
    files = served(readableOf(generations), files);
    expect(lastModified(files, 'dists/bookworm/contrib/binary-amd64/Packages')).toBe('2024-03-05T11:00:00.000Z');
    expect(lastModified(files, 'dists/bookworm/InRelease')).toBe('2024-03-05T15:00:00.000Z');
  });

  it('serves what the newest generation has under a path, and drops generations it no longer retains', () => {
    const generations = [1, 2, 3, 4, 5].map((g) => publication(g, `2024-03-05T1${g}:00:00Z`, [file('dists/bookworm/InRelease', `s${g}`), file(`by-hash/s${g}`, `s${g}`)]));
    const files = served(readableOf(generations));
    expect(files.get('/deb/acme/tools/debian/dists/bookworm/InRelease')!.sha256).toBe('s5');
    expect([...files.keys()].filter((path) => path.includes('by-hash')).sort()).toEqual(['s2', 's3', 's4', 's5'].map((s) => `/deb/acme/tools/debian/by-hash/${s}`));
  });
});

/** the generations readableGenerations keeps, with their files */
function readableOf(generations: LoadedPublication[]): LoadedPublication[] {
  const kept = readableGenerations(generations.map(({ publication }) => publication));
  return kept.map((record) => generations.find(({ publication }) => publication === record)!);
}

describe('the distributions that hold packages', () => {
  const generation = (distribution: string, number: number, packages: number): PublicationRecord => {
    const [distro, version] = distribution.split('/');
    const files = [file(`dists/${version}/InRelease`, `${distribution}-${number}`), ...Array.from({ length: packages }, (_, i) => file(`pool/main/p/p${i}.deb`, `p${i}`, true))];
    return { ...publication(number, '2024-03-05T10:00:00Z', files).publication, id: `r1|${distribution}|${number}`, distribution, distro, version };
  };

  it('counts the packages of the newest generation and leaves out empty indices', () => {
    const stocked = stockedDistributions({ codename: '' }, [generation('debian/bookworm', 1, 2), generation('debian/bookworm', 2, 0), generation('ubuntu/noble', 1, 0), generation('ubuntu/jammy', 3, 1)], DEB_UPLOAD_DISTRIBUTIONS);
    expect(stocked).toEqual([{ distro: 'ubuntu', version: 'jammy', packageCount: 1 }]);
  });

  it('puts the repository’s own codename first, then the upload list’s order, then the rest by name', () => {
    const publications = [generation('debian/bookworm', 1, 1), generation('ubuntu/stable', 1, 1), generation('debian/stable', 1, 1), generation('ubuntu/noble', 1, 3), generation('kali/kali-rolling', 1, 1)];
    const order = (codename: string) => stockedDistributions({ codename }, publications, DEB_UPLOAD_DISTRIBUTIONS).map(({ distro, version }) => `${distro}/${version}`);
    expect(order('bookworm')).toEqual(['debian/bookworm', 'ubuntu/noble', 'kali/kali-rolling', 'debian/stable', 'ubuntu/stable']);
    expect(order('stable')).toEqual(['debian/stable', 'ubuntu/stable', 'ubuntu/noble', 'debian/bookworm', 'kali/kali-rolling']);
  });
});
