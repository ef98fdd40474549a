import { describe, expect, it } from 'vitest';
import type { IndexFile } from '@packyard/proto/packyard/repository/v1/events';
import { DEB_UPLOAD_DISTRIBUTIONS } from '@packyard/formats';
import { readableGenerations, stockedDistributions, type LoadedPublication, type PublicationRecord, type RepositoryRecord } from './served-file';
import { distributionsAt, servedFiles, type ServedFiles } from './served-files';

const repository: RepositoryRecord = { id: 'r1', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme', name: 'tools', ownerId: 'u1', codename: '', component: '' };
const file = (path: string, sha256: string, isPackage = false): IndexFile => ({ path, blobKey: `b/${sha256}`, size: 1, sha256, contentType: '', package: isPackage });

function publication(generation: number, publishedAt: string, files: IndexFile[], parts: IndexFile[][] = []): LoadedPublication {
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
      packageCount: [files, ...parts].flat().filter((candidate) => candidate.package).length,
    },
    sources: [files, ...parts],
  };
}

const served = (generations: LoadedPublication[], before?: ServedFiles) => servedFiles(repository, generations, before);
const lastModified = (files: ServedFiles, path: string) => new Date(files.get(`/deb/acme/tools/debian/${path}`)!.lastModifiedMs).toISOString();

describe('Last-Modified of published files', () => {
  it('moves an entry point a second forward when two generations change it within one second', () => {
    const first = publication(1, '2024-03-05T10:00:00.100Z', [file('dists/bookworm/InRelease', 'a')]);
    const second = publication(2, '2024-03-05T10:00:00.900Z', [file('dists/bookworm/InRelease', 'b')]);
    const third = publication(3, '2024-03-05T10:00:00.950Z', [file('dists/bookworm/InRelease', 'c')]);
    expect(lastModified(served([first]), 'dists/bookworm/InRelease')).toBe('2024-03-05T10:00:00.000Z');
    expect(lastModified(served([first, second]), 'dists/bookworm/InRelease')).toBe('2024-03-05T10:00:01.000Z');
    expect(lastModified(served([first, second, third]), 'dists/bookworm/InRelease')).toBe('2024-03-05T10:00:02.000Z');
  });

  it('dates the entry points of a generation loaded without its predecessors no earlier than they may have been served', () => {
    const first = publication(1, '2024-03-05T10:00:00.100Z', [file('dists/bookworm/InRelease', 'a')]);
    const second = publication(2, '2024-03-05T10:00:00.900Z', [file('dists/bookworm/InRelease', 'b'), file('pool/main/h/hello.deb', 'p', true)]);
    const third = publication(3, '2024-03-05T10:00:00.950Z', [file('dists/bookworm/InRelease', 'c')]);
    const records = [first, second, third].map(({ publication }) => publication);
    // loaded with both predecessors, the third was dated 10:00:02; alone, not before that
    expect(lastModified(servedFiles(repository, [third], undefined, records), 'dists/bookworm/InRelease')).toBe('2024-03-05T10:00:02.000Z');
    expect(lastModified(servedFiles(repository, [second], undefined, records), 'pool/main/h/hello.deb')).toBe('2024-03-05T10:00:00.000Z');
    const later = publication(4, '2024-03-05T10:10:00.000Z', [file('dists/bookworm/InRelease', 'd')]);
    expect(lastModified(servedFiles(repository, [later], undefined, [...records, later.publication]), 'dists/bookworm/InRelease')).toBe('2024-03-05T10:10:00.000Z');
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
    expect(['s1', 's2', 's3', 's4', 's5'].filter((s) => files.get(`/deb/acme/tools/debian/by-hash/${s}`)?.sha256 === s)).toEqual(['s2', 's3', 's4', 's5']);
  });
});

describe('the files a repository serves', () => {
  const packages = (count: number) => Array.from({ length: count }, (_, i) => file(`pool/main/p/p${i}.deb`, `p${i}`, true));

  it('makes, for one more generation, only the files it changed, and keeps every other entry as served', () => {
    const generations = [1, 2, 3, 4].map((g) => publication(g, `2024-03-05T1${g}:00:00Z`, [file('dists/bookworm/InRelease', `s${g}`), ...packages(1000 + g)]));
    const before = served(generations.slice(0, 3));
    const after = served(generations, before);
    expect(before.size).toBe(3 + 1003);
    // the new InRelease and the one new package; nothing of the three generations before it made again
    expect(after.size).toBe(before.size + 2);
    expect(after.get('/deb/acme/tools/debian/pool/main/p/p7.deb')).toBe(before.get('/deb/acme/tools/debian/pool/main/p/p7.deb'));
    expect(after.get('/deb/acme/tools/debian/pool/main/p/p1003.deb')!.sha256).toBe('p1003');
    expect(after.get('/deb/acme/tools/debian/dists/bookworm/InRelease')!.sha256).toBe('s4');
  });

  it('makes a generation from the parts it shares with the one before, going through only its other lists, and serves what a build of every list would', () => {
    // the entries whose path was read
    const read = new Set<IndexFile>();
    const pool = (from: number, to: number, tag = '') =>
      Array.from({ length: to - from }, (_, i) => {
        const entry: IndexFile = file(`pool/main/p/p${from + i}.deb`, `p${from + i}${tag}`, true);
        return Object.defineProperty(entry, 'path', { get: () => (read.add(entry), `pool/main/p/p${from + i}.deb`) });
      });
    const [a, b, c] = [pool(0, 500), pool(500, 1000), pool(1000, 1500)];
    // a package gone, one rebuilt with other bytes and one more: the middle part only
    const changed = [...pool(500, 700), ...pool(701, 800), ...pool(800, 801, 'x'), ...pool(801, 1000), ...pool(1500, 1501)];
    const first = publication(1, '2024-03-05T10:00:00Z', [file('dists/bookworm/InRelease', 's1')], [a, b, c]);
    const second = publication(2, '2024-03-05T11:00:00Z', [file('dists/bookworm/InRelease', 's2')], [a, changed, c]);
    // the same files in lists of their own: nothing shared, every file gone through
    const unshared = (generation: LoadedPublication) => ({ ...generation, sources: generation.sources.map((source) => [...source]) });
    const paths = [...a, ...b, ...c, ...changed, file('dists/bookworm/InRelease', '')].map((entry) => `/deb/acme/tools/debian/${entry.path}`);
    const answers = (files: ServedFiles) => paths.map((path) => [path, files.get(path)?.sha256, files.get(path)?.lastModifiedMs]);

    const before = served([first]);
    read.clear();
    const after = served([first, second], before);
    expect([...a, ...c].filter((entry) => read.has(entry))).toEqual([]);
    expect(answers(after)).toEqual(answers(served([unshared(first), unshared(second)])));
    expect(after.get('/deb/acme/tools/debian/pool/main/p/p7.deb')).toBe(before.get('/deb/acme/tools/debian/pool/main/p/p7.deb'));
    expect(after.get('/deb/acme/tools/debian/pool/main/p/p800.deb')!.sha256).toBe('p800x');
    // the first generation no longer readable: the second is made from what the edge served
    const alone = served([second], before);
    expect(answers(alone)).toEqual(answers(served([unshared(second)], served([unshared(first)]))));
    expect(alone.get('/deb/acme/tools/debian/pool/main/p/p700.deb')).toBeUndefined();
    expect(alone.size).toBe(1 + 2);
    // a path in two of its lists: the later list's file, as a build of every list serves it
    const third = publication(3, '2024-03-05T12:00:00Z', [file('dists/bookworm/InRelease', 's3')], [a, changed, c, pool(10, 11, 'y')]);
    expect(answers(served([first, second, third], after))).toEqual(answers(served([first, second, third].map(unshared))));
    expect(served([first, second, third], after).get('/deb/acme/tools/debian/pool/main/p/p10.deb')!.sha256).toBe('p10y');
  });

  it('finds RPM files two segments below the repository, and the public keys at its root', () => {
    const rpm: RepositoryRecord = { ...repository, kind: 'RPM' };
    const generation = publication(1, '2024-03-05T10:00:00Z', [file('repodata/repomd.xml', 'r1'), file('hello-1.0.x86_64.rpm', 'h', true)]);
    const fedora = { ...generation, publication: { ...generation.publication, distro: 'fedora', version: '40' }, repositoryFiles: [file('keyring.gpg', 'k')] };
    const files = servedFiles(rpm, [fedora]);
    expect(files.get('/rpm/acme/tools/fedora/40/repodata/repomd.xml')!.sha256).toBe('r1');
    expect(files.get('/rpm/acme/tools/fedora/40/hello-1.0.x86_64.rpm')!.isPackage).toBe(true);
    expect(files.get('/rpm/acme/tools/keyring.gpg')!.sha256).toBe('k');
    expect(files.get('/rpm/acme/tools/fedora/41/repodata/repomd.xml')).toBeUndefined();
    expect(files.get('/rpm/acme/toolsmith/keyring.gpg')).toBeUndefined();
    expect(files.get('/rpm/acme/tools')).toBeUndefined();
  });

  it('lets the newest generation decide a path that distributions of one distro share (the DEB pool)', () => {
    const bookworm = publication(1, '2024-03-05T10:00:00Z', [file('pool/main/h/hello.deb', 'old', true)]);
    const trixie = publication(1, '2024-03-05T11:00:00Z', [file('pool/main/h/hello.deb', 'new', true)]);
    const files = served([bookworm, { ...trixie, publication: { ...trixie.publication, id: 'r1|debian/trixie|1', distribution: 'debian/trixie', version: 'trixie' } }]);
    expect(files.get('/deb/acme/tools/debian/pool/main/h/hello.deb')!.sha256).toBe('new');
  });
});

describe('the distributions a path may be in', () => {
  const records = (...distributions: string[]) =>
    distributions.map((distribution) => {
      const [distro, version] = distribution.split('/');
      return { ...publication(1, '2024-03-05T10:00:00Z', []).publication, distribution, distro, version };
    });
  const deb = records('debian/bookworm', 'debian/bullseye', 'ubuntu/noble');

  it('names the one distribution of an index or of a pool file placed by its distribution', () => {
    expect(distributionsAt('DEB', 'debian/dists/bullseye/main/binary-amd64/Packages.gz', deb)).toEqual(['debian/bullseye']);
    expect(distributionsAt('DEB', 'debian/pool/main/h/hello/debian/bookworm/hello_1.0_all.deb', deb)).toEqual(['debian/bookworm']);
    expect(distributionsAt('RPM', 'el/9/repodata/repomd.xml', records('el/9', 'el/8'))).toEqual(['el/9']);
  });

  it('names every distribution below the root for a path that names none (a pool file uploaded to any-distro/any-version)', () => {
    expect(distributionsAt('DEB', 'debian/pool/main/h/hello/any-distro/any-version/hello_1.0_all.deb', deb)).toEqual(['debian/bookworm', 'debian/bullseye']);
    expect(distributionsAt('DEB', 'debian/dists/trixie/InRelease', deb)).toEqual(['debian/bookworm', 'debian/bullseye']);
    expect(distributionsAt('DEB', 'gpg.key', deb)).toEqual([]);
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
