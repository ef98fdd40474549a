import {
  blockEndsAfter,
  buildAptIndex,
  buildUpdateinfo,
  buildRelease,
  buildRepodata,
  byHashPaths,
  indexFile,
  isVisibleIn,
  packagesForArchitecture,
  packagesStanza,
  publishedArchitectures,
  yumPackageFragments,
  type AptIndexEntry,
  type ControlField,
  type DebFileDigests,
  type Distribution,
  GzipBlockCache,
  type IndexFile,
  type RepodataOptions,
  type RpmPackage,
  type SourceIndexFile,
  sourcesStanza,
  turnOfItsOwn,
  type YumPackageFragments,
} from '@packyard/formats';
import { RecentlyUsed } from '@packyard/platform';
import type { Advisory } from '@packyard/formats/recorded-distributions';
import type { PublishablePackage } from '../packages/publishable-package';
import { debComponents, isSourcePackage, poolPath, RPM_SOURCE_DIR, type PublishedRepository } from './publication-layout';

/** One distribution's unsigned metadata; paths are relative to the distribution root. */
export interface BuiltGeneration {
  /** every metadata file to store, the file to sign included */
  metadata: IndexFile[];
  /** Release (DEB), or repodata/repomd.xml and SRPMS/repodata/repomd.xml (RPM): what the signatures cover */
  signables: IndexFile[];
  /** by-hash paths, each a second name of a metadata file */
  aliases: { path: string; of: IndexFile }[];
  /**
   * the package files the metadata points at (a source package's .dsc and every file it
   * lists); an unchanged package's entries are the same objects build after build
   */
  pool: PoolEntry[];
}

/** a package file at its path in the pool */
export interface PoolEntry {
  path: string;
  file: PoolFile;
}

/** a stored file as the pool serves it */
export interface PoolFile {
  blobKey: string;
  size: number;
  sha256: string;
}

/** a source package's Sources stanza and the files of its pool directory */
interface SourceEntry {
  key: string;
  endsBlock: boolean;
  text: string;
  pool: PoolEntry[];
}

/**
 * Which APT index lists a DEB package, by its canonical file name: binary packages in
 * `binary-<arch>/Packages`, debian-installer packages in `debian-installer/binary-<arch>/`
 * (Debian's layout; apt never reads them, the installer does), debug symbols in
 * `debug/binary-<arch>/` (Launchpad's `main/debug` layout, a sources.list line of its own),
 * source packages in `source/Sources`.
 */
type AptIndexKind = 'binary' | 'installer' | 'debug' | 'source';
const aptIndexKind = (pkg: Pick<PublishablePackage, 'filename'>): AptIndexKind =>
  pkg.filename.endsWith('.dsc') ? 'source' : pkg.filename.endsWith('.udeb') ? 'installer' : pkg.filename.endsWith('.ddeb') ? 'debug' : 'binary';

/** where a kind's per-architecture Packages index lives below its component */
const BINARY_DIRECTORIES: Record<Exclude<AptIndexKind, 'source'>, string> = { binary: '', installer: 'debian-installer/', debug: 'debug/' };

/**
 * one repository's cached index text and compressed blocks; the entries by package object:
 * the package sets keep a package's object while it is unchanged, so a lookup builds no key
 * (100,000 keys a build were a tenth of a second), and a deleted or changed package's entry
 * goes with its old object
 */
interface RepositoryEntries {
  apt: WeakMap<PublishablePackage, AptEntry & { component: string }>;
  source: WeakMap<PublishablePackage, SourceEntry & { component: string }>;
  yum: WeakMap<PublishablePackage, YumEntry>;
  blocks: Map<string, GzipBlockCache>;
  /** each YUM repository's repomd.xml as built last, with the metadata files it lists (unchangedRepomd) */
  repomds: Map<string, { files: string; repomd: IndexFile }>;
}

/**
 * The repositories whose index text and compressed blocks stay in memory between builds,
 * the most recently built first: a repository past them is rebuilt from its package set
 * (every stanza and block computed again, as after a start). Memory follows this number
 * and the size of those repositories, not how many repositories there are.
 */
export const CACHED_REPOSITORIES = 64;

/** how many entries a build computes in one turn of the event loop, when it computes many (after a start) */
const ENTRIES_PER_TURN = 2_000;

/**
 * Per-package index text (a Packages stanza, or primary/filelists/other fragments) depends
 * only on the package and its pool path, so it is computed once per package; an index of
 * 10,000 packages is a concatenation of blocks, compressed once each (GzipBlockCache).
 * Kept per repository, for the `capacity` repositories built last.
 */
export class IndexEntryCache {
  private readonly repositories: RecentlyUsed<string, RepositoryEntries>;
  /** entries computed (not found in the cache) since the process started: see dueForTurn */
  private made = 0;

  constructor(capacity = CACHED_REPOSITORIES) {
    this.repositories = new RecentlyUsed(capacity);
  }

  private of(repositoryId: string): RepositoryEntries {
    let entries = this.repositories.get(repositoryId);
    if (!entries) this.repositories.set(repositoryId, (entries = { apt: new WeakMap(), source: new WeakMap(), yum: new WeakMap(), blocks: new Map(), repomds: new Map() }));
    return entries;
  }

  /** the package's Packages stanza under its pool path in `component` */
  aptEntry(pkg: PublishablePackage, component: string): AptEntry {
    const entries = this.of(pkg.repositoryId).apt;
    let cached = entries.get(pkg);
    if (cached?.component !== component) {
      const { control, file } = JSON.parse(pkg.indexEntryJson) as { control: ControlField[]; file: DebFileDigests };
      const filename = poolPath('DEB', component, pkg);
      const text = packagesStanza({ control, filename, file });
      const key = `${pkg.id}|${component}`;
      cached = { key, endsBlock: blockEndsAfter(key), component, control, filename, file, text, pool: { path: filename, file: poolFileOf(pkg) } };
      entries.set(pkg, cached);
      this.made++;
    }
    return cached;
  }

  /** a source package's Sources stanza under its pool directory in `component`, and the files there */
  sourceEntry(pkg: PublishablePackage, component: string): SourceEntry {
    const entries = this.of(pkg.repositoryId).source;
    let cached = entries.get(pkg);
    if (cached?.component !== component) {
      const { source } = JSON.parse(pkg.indexEntryJson) as { source: { control: ControlField[]; files: SourceIndexFile[] } };
      const dsc = poolPath('DEB', component, pkg);
      const directory = dsc.slice(0, dsc.lastIndexOf('/'));
      const stored = new Map(pkg.sourceFiles.map((file) => [file.filename, { blobKey: file.blobKey, size: file.sizeBytes, sha256: file.sha256 }]));
      const key = `${pkg.id}|${component}`;
      cached = {
        key,
        endsBlock: blockEndsAfter(key),
        component,
        text: sourcesStanza({ control: source.control, directory, files: source.files }),
        pool: [
          { path: dsc, file: poolFileOf(pkg) },
          ...pkg.sourceFiles.map((file) => ({ path: `${directory}/${file.filename}`, file: stored.get(file.filename)! })),
        ],
      };
      entries.set(pkg, cached);
      this.made++;
    }
    return cached;
  }

  /** the package's primary/filelists/other fragments, located at its pool path */
  yumFragments(pkg: PublishablePackage): YumEntry {
    const entries = this.of(pkg.repositoryId).yum;
    let cached = entries.get(pkg);
    if (!cached) {
      const { rpm } = JSON.parse(pkg.indexEntryJson) as { rpm: RpmPackage };
      const path = poolPath('RPM', '', pkg);
      const fragments = yumPackageFragments({ rpm, location: path, fileTime: Math.floor(Date.parse(pkg.uploadedAt) / 1000) });
      const key = `${pkg.id}|`;
      cached = { key, endsBlock: blockEndsAfter(key), path, fragments, pool: { path, file: poolFileOf(pkg) } };
      entries.set(pkg, cached);
      this.made++;
    }
    return cached;
  }

  /** where a build starts counting the entries it computes (see dueForTurn) */
  startCounting(): { made: number } {
    return { made: this.made };
  }

  /**
   * Whether a build computed ENTRIES_PER_TURN entries since it last let the event loop take
   * other work in: the first build of a large repository after a start computes every entry,
   * seconds at 100,000 packages, and the requests the process answers meanwhile (an upload's
   * ClaimUpload, which timed out after 10 s behind it) get turns between. A build after one
   * upload computes one.
   */
  dueForTurn(counting: { made: number }): boolean {
    if (this.made - counting.made < ENTRIES_PER_TURN) return false;
    counting.made = this.made;
    return true;
  }

  /** the compressed blocks of one distribution's index files */
  blocksOf(repositoryId: string, distribution: string): GzipBlockCache {
    const { blocks } = this.of(repositoryId);
    let cache = blocks.get(distribution);
    if (!cache) blocks.set(distribution, (cache = new GzipBlockCache()));
    return cache;
  }

  /**
   * the repomd.xml a YUM repository (by its root) was built with last, the same object, when it
   * lists the same metadata files again: the same bytes, revision and timestamps included, so an
   * unchanged repository (an RPM distribution's source packages while binary packages come and
   * go) is not signed again (the workflow keeps signatures by the signed object) and its
   * clients find nothing new in it
   */
  unchangedRepomd(repositoryId: string, root: string, files: readonly IndexFile[], repomd: IndexFile): IndexFile {
    const { repomds } = this.of(repositoryId);
    const listed = files.map((file) => file.sha256).join(' ');
    const before = repomds.get(root);
    if (before?.files === listed) return before.repomd;
    repomds.set(root, { files: listed, repomd });
    return repomd;
  }

  forgetRepository(repositoryId: string): void {
    this.repositories.delete(repositoryId);
  }
}

/** A stable Origin/Label/Codename for the repository's life: apt refuses a Release whose Origin or Label changed. */
export const releaseOrigin = (repository: PublishedRepository) => `Packyard ${repository.workspaceSlug}/${repository.name}`;

/** how the metadata is written, apart from what it lists */
export interface BuildOptions {
  /** APT's plain indices are stored while at most this many bytes (formats' DEFAULT_PLAIN_MAX_BYTES); bigger ones are listed in Release only */
  plainIndexMaxBytes?: number;
}

/**
 * Builds one distribution's metadata from the packages visible in it and (RPM) the
 * repository's advisories; `date` is the publication time.
 */
export async function buildGeneration(
  repository: PublishedRepository,
  target: Distribution,
  packages: readonly PublishablePackage[],
  cache: IndexEntryCache,
  date: Date,
  advisories: readonly Advisory[] = [],
  options: BuildOptions = {},
): Promise<BuiltGeneration> {
  return repository.kind === 'DEB' ? buildDeb(repository, target, packages, cache, date, options) : buildRpm(repository, target, packages, cache, date, advisories);
}

async function buildDeb(
  repository: PublishedRepository,
  target: Distribution,
  packages: readonly PublishablePackage[],
  cache: IndexEntryCache,
  date: Date,
  { plainIndexMaxBytes }: BuildOptions,
): Promise<BuiltGeneration> {
  const component = repository.component || 'main';
  const root = `dists/${target.version}`;
  const binaries = { binary: [] as AptEntry[], installer: [] as AptEntry[], debug: [] as AptEntry[] };
  const sources: SourceEntry[] = [];
  const pool: BuiltGeneration['pool'] = [];
  const counting = cache.startCounting();
  for (const pkg of packages) {
    if (cache.dueForTurn(counting)) await turnOfItsOwn();
    const kind = aptIndexKind(pkg);
    if (kind === 'source') {
      const entry = cache.sourceEntry(pkg, component);
      sources.push(entry);
      pool.push(...entry.pool);
    } else {
      const entry = cache.aptEntry(pkg, component);
      binaries[kind].push(entry);
      pool.push(entry.pool);
    }
  }
  const architectures = publishedArchitectures([...binaries.binary, ...binaries.installer, ...binaries.debug]);
  const components = debComponents(component);
  const blocks = cache.blocksOf(repository.id, `${target.distro}/${target.version}`);
  // every component has binary and source indices (the install instructions name any of
  // them in deb and deb-src lines); installer and debug ones only the repository's own, and
  // only once it holds such packages (apt never reads the first; the second needs a sources
  // line of its own): an index file and three by-hash names fewer per architecture in every
  // Release and publication otherwise
  const binaryIndex = (name: string, kind: keyof typeof binaries, architecture: string) =>
    buildAptIndex(`${name}/${BINARY_DIRECTORIES[kind]}binary-${architecture}/Packages`, name === component ? packagesForArchitecture(binaries[kind], architecture) : [], { plainMaxBytes: plainIndexMaxBytes }, blocks);
  const indices = await Promise.all([
    ...components.flatMap((name) => [
      ...architectures.map((architecture) => binaryIndex(name, 'binary', architecture)),
      buildAptIndex(`${name}/source/Sources`, name === component ? sources : [], { plainMaxBytes: plainIndexMaxBytes }, blocks),
    ]),
    ...(['installer', 'debug'] as const)
      .filter((kind) => binaries[kind].length)
      .flatMap((kind) => architectures.map((architecture) => binaryIndex(component, kind, architecture))),
  ]);
  blocks.sweep();
  const release = buildRelease(indices.flatMap((index) => index.listed), {
    origin: releaseOrigin(repository),
    label: releaseOrigin(repository),
    suite: target.version,
    codename: target.version,
    date,
    architectures,
    components,
    description: `Packyard repository ${repository.workspaceSlug}/${repository.name} for ${target.distro} ${target.version}`,
  });
  // the same bytes and digests under their path below the distribution root
  const stored = indices.flatMap((index) => index.files);
  const metadata = stored.map((file) => ({ ...file, path: `${root}/${file.path}` }));
  const signable = indexFile(`${root}/Release`, Buffer.from(release, 'utf8'));
  const aliases = stored.flatMap((file, index) => byHashPaths(file).map((path) => ({ path: `${root}/${path}`, of: metadata[index] })));
  // source packages of one upstream version share their orig tarball's path
  return { metadata: [...metadata, signable], signables: [signable], aliases, pool: sources.length ? uniquePaths(pool) : pool };
}

type AptEntry = AptIndexEntry & { key: string; endsBlock: boolean; text: string; pool: PoolEntry };

/** a package's primary/filelists/other fragments, and its file, located at its pool path */
interface YumEntry {
  key: string;
  endsBlock: boolean;
  path: string;
  fragments: YumPackageFragments;
  pool: PoolEntry;
}

const poolFileOf = (pkg: PublishablePackage): PoolFile => ({ blobKey: pkg.blobKey, size: pkg.sizeBytes, sha256: pkg.sha256 });

/** an orig tarball shared by two revisions of a source package is one pool file */
const uniquePaths = (pool: BuiltGeneration['pool']) => [...new Map(pool.map((entry) => [entry.path, entry])).values()];

/**
 * The advisories whose packages apply to `target` (their upload distribution is visible in
 * it), each listing only those packages; oldest first, as dnf lists them.
 */
export function advisoriesFor(target: Distribution, advisories: readonly Advisory[]): Advisory[] {
  return advisories
    .map((advisory) => ({ ...advisory, packages: advisory.packages.filter((pkg) => isVisibleIn(pkg.uploadDistribution, target)) }))
    .filter((advisory) => advisory.packages.length > 0)
    .sort((a, b) => a.issuedAt.localeCompare(b.issuedAt) || a.id.localeCompare(b.id));
}

async function buildRpm(
  repository: PublishedRepository,
  target: Distribution,
  packages: readonly PublishablePackage[],
  cache: IndexEntryCache,
  date: Date,
  advisories: readonly Advisory[],
): Promise<BuiltGeneration> {
  const seconds = Math.floor(date.getTime() / 1000);
  const applying = advisoriesFor(target, advisories);
  // like modifyrepo_c: only a repository with advisories lists an updateinfo
  const additional = applying.length
    ? [{
        type: 'updateinfo',
        xml: buildUpdateinfo(applying, {
          from: releaseOrigin(repository),
          collection: { short: `${target.distro}-${target.version}`, name: `${releaseOrigin(repository)} ${target.distro} ${target.version}` },
        }),
      }]
    : [];
  const options = { revision: String(seconds), timestamp: seconds };
  const distribution = `${target.distro}/${target.version}`;
  // the source packages' repository is published empty too, so a [<name>-source] section always answers
  const [binaries, sources] = await Promise.all([
    yumRepository(packages.filter((pkg) => !isSourcePackage(pkg)), '', { ...options, additional }, cache, repository.id, distribution),
    yumRepository(packages.filter(isSourcePackage), `${RPM_SOURCE_DIR}/`, options, cache, repository.id, `${distribution}/${RPM_SOURCE_DIR}`),
  ]);
  return {
    metadata: [...binaries.metadata, ...sources.metadata],
    signables: [binaries.repomd, sources.repomd],
    aliases: [],
    pool: [...binaries.pool, ...sources.pool],
  };
}

/** one YUM repository (repodata and the packages it locates) whose root is `prefix` below the distribution root, `root` in the repository */
async function yumRepository(packages: readonly PublishablePackage[], prefix: string, options: RepodataOptions, cache: IndexEntryCache, repositoryId: string, root: string) {
  const fragments: YumEntry[] = [];
  const counting = cache.startCounting();
  for (const pkg of packages) {
    if (cache.dueForTurn(counting)) await turnOfItsOwn();
    fragments.push(cache.yumFragments(pkg));
  }
  const blocks = cache.blocksOf(repositoryId, root);
  const repodata = await buildRepodata(fragments, options, blocks);
  blocks.sweep();
  const below = (file: IndexFile): IndexFile => ({ ...file, path: `${prefix}${file.path}` });
  const repomd = cache.unchangedRepomd(repositoryId, root, repodata.files, below(repodata.repomd));
  return {
    metadata: [...repodata.files.map(below), repomd],
    repomd,
    pool: prefix ? fragments.map(({ pool }) => ({ path: `${prefix}${pool.path}`, file: pool.file })) : fragments.map(({ pool }) => pool),
  };
}
