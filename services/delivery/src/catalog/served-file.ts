import type { IndexFile, PublicationManifestRef } from '@packyard/proto/packyard/repository/v1/events';
import { httpDate, strongEtag } from '../http/conditional-request';

/** What delivery knows about a repository: enough to map URLs to it and check tokens. */
export interface RepositoryRecord {
  id: string;
  kind: 'DEB' | 'RPM';
  workspaceId: string;
  workspaceSlug: string;
  name: string;
  ownerId: string;
  codename: string;
  component: string;
  /** deleted: nothing of it is served (its publications are kept for a restoration) */
  deleted?: boolean;
  /** purged after its grace period: its publications are gone, and late ones are ignored */
  purged?: boolean;
}

/** One published generation of one distribution, as kept in delivery's read model. */
export interface PublicationRecord {
  /** `<repositoryId>|<distribution>|<generation>` */
  id: string;
  repositoryId: string;
  distribution: string;
  distro: string;
  version: string;
  generation: number;
  publishedAt: string;
  /** generations of the same distribution to keep readable besides this one */
  retainedGenerations: number[];
  /** the generation's files, read from the blob store on demand (PublicationManifests) */
  manifest: PublicationManifestRef;
  /** the package (pool) files it lists */
  packageCount: number;
}

/** A readable generation with the files its manifest lists. */
export interface LoadedPublication {
  publication: PublicationRecord;
  /** its files: the manifest's own, then each of its parts' (a part generations share is the same list) */
  sources: readonly (readonly IndexFile[])[];
  /** files of the whole repository (its public keys), paths relative to the repository URL */
  repositoryFiles?: readonly IndexFile[];
}

// Content-addressed paths never change meaning; the entry points (InRelease, Release,
// Packages by name, repomd.xml) do, so caches must come back soon and revalidate.
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
export const REVALIDATE_CACHE_CONTROL = 'public, max-age=60, must-revalidate';

const CONTENT_TYPES: [RegExp, string][] = [
  [/\.[ud]?deb$/, 'application/vnd.debian.binary-package'],
  [/\.rpm$/, 'application/x-rpm'],
  [/\.gz$/, 'application/gzip'],
  [/\.xz$/, 'application/x-xz'],
  [/\.zst$/, 'application/zstd'],
  [/\.bz2$/, 'application/x-bzip2'],
  [/\.xml$/, 'application/xml'],
  [/\.(asc|key)$/, 'application/pgp-keys'],
  [/\.gpg$/, 'application/pgp-signature'],
  [/(^|\/)InRelease$/, 'text/plain; charset=utf-8'],
];

/** the type a file is served with when its publication does not name one */
export function contentTypeOf(path: string): string {
  for (const [pattern, type] of CONTENT_TYPES) if (pattern.test(path)) return type;
  return 'text/plain; charset=utf-8';
}

/** whether the path can only ever hold these bytes: packages, by-hash files, `<sha256>-primary.xml.gz`… */
export function isContentAddressed(file: IndexFile): boolean {
  if (file.package || file.path.includes('/by-hash/')) return true;
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  return file.sha256 !== '' && name.startsWith(file.sha256);
}

/** the URL path prefix of a repository: `/deb/{workspaceSlug}/{repoName}` */
export const repositoryPath = (repository: Pick<RepositoryRecord, 'kind' | 'workspaceSlug' | 'name'>): string =>
  `/${repository.kind === 'DEB' ? 'deb' : 'rpm'}/${repository.workspaceSlug}/${repository.name}`;

/** the header lists of a served file, made at its first request: most files a catalogue holds are never asked for */
interface HeaderLists {
  etag: string;
  headers: string[];
  fullHeaders: string[];
  notModifiedHeaders: string[];
}

/** the Last-Modified of a file new to its root: its generation's date if content-addressed, else the entry points' floor (see layerOf) */
export interface NewFileDates {
  own: number;
  entryPoints: number;
}

/**
 * A file the edge answers. It answers what its manifest entry says, read from the entry at
 * its first use, as its date and headers are made: most files a catalogue holds are never
 * asked for, so loading a repository reads their paths and nothing else.
 */
export class ServedFile {
  private lists?: HeaderLists;
  private type?: string;
  /** small metadata files are held in memory; packages are streamed from the blob store */
  body?: Buffer;

  constructor(
    readonly repositoryId: string,
    /** its manifest entry */
    readonly entry: IndexFile,
    private date: number | NewFileDates,
  ) {}

  get blobKey(): string {
    return this.entry.blobKey;
  }

  get size(): number {
    return this.entry.size;
  }

  get sha256(): string {
    return this.entry.sha256;
  }

  /** a package (pool file, .rpm): counted as a download */
  get isPackage(): boolean {
    return this.entry.package;
  }

  get contentType(): string {
    return (this.type ??= this.entry.contentType || contentTypeOf(this.entry.path));
  }

  get lastModifiedMs(): number {
    if (typeof this.date !== 'number') this.date = isContentAddressed(this.entry) ? this.date.own : this.date.entryPoints;
    return this.date;
  }

  get etag(): string {
    return this.headerLists.etag;
  }

  /** 206 headers without content-length and content-range */
  get headers(): string[] {
    return this.headerLists.headers;
  }

  /** 200 headers, content-length included */
  get fullHeaders(): string[] {
    return this.headerLists.fullHeaders;
  }

  /** 304 headers */
  get notModifiedHeaders(): string[] {
    return this.headerLists.notModifiedHeaders;
  }

  private get headerLists(): HeaderLists {
    return (this.lists ??= this.makeHeaderLists());
  }

  private makeHeaderLists(): HeaderLists {
    const etag = strongEtag(this.sha256);
    const validators = ['etag', etag, 'last-modified', httpDate(this.lastModifiedMs), 'cache-control', isContentAddressed(this.entry) ? IMMUTABLE_CACHE_CONTROL : REVALIDATE_CACHE_CONTROL, 'vary', 'Authorization'];
    const headers = ['content-type', this.contentType, 'accept-ranges', 'bytes', ...validators];
    return { etag, headers, fullHeaders: [...headers, 'content-length', String(this.size)], notModifiedHeaders: validators };
  }
}

/**
 * The generations a repository serves: per distribution the newest and the ones it
 * retains, oldest first (publication records of generations without a manifest, from
 * before manifests existed, are left out: the publisher replaces them).
 */
export function readableGenerations(publications: readonly PublicationRecord[]): PublicationRecord[] {
  const readable: PublicationRecord[] = [];
  for (const list of byDistribution(publications.filter((publication) => publication.manifest)).values()) {
    const newest = newestOf(list);
    const kept = new Set([newest.generation, ...newest.retainedGenerations]);
    readable.push(...list.filter((publication) => kept.has(publication.generation)));
  }
  return readable.sort((a, b) => a.publishedAt.localeCompare(b.publishedAt) || a.generation - b.generation);
}

function byDistribution(publications: readonly PublicationRecord[]): Map<string, PublicationRecord[]> {
  const grouped = new Map<string, PublicationRecord[]>();
  for (const publication of publications) {
    const list = grouped.get(publication.distribution) ?? [];
    list.push(publication);
    grouped.set(publication.distribution, list);
  }
  return grouped;
}

const newestOf = (list: readonly PublicationRecord[]) => list.reduce((a, b) => (b.generation > a.generation ? b : a));

/** A distribution whose current index lists packages (its packages, not its metadata files). */
export interface StockedDistribution {
  distro: string;
  version: string;
  packageCount: number;
}

/**
 * The distributions whose newest generation holds packages: every index is published,
 * empty ones too, so this is what tells a client where the packages are. The repository's
 * own codename comes first, then the order of `preferred` (the upload list), then the rest
 * by name.
 */
export function stockedDistributions(repository: Pick<RepositoryRecord, 'codename'>, publications: readonly PublicationRecord[], preferred: readonly string[]): StockedDistribution[] {
  const stocked: (StockedDistribution & { distribution: string })[] = [];
  for (const [distribution, list] of byDistribution(publications)) {
    const { packageCount } = newestOf(list);
    if (packageCount > 0) stocked.push({ distribution, distro: newestOf(list).distro, version: newestOf(list).version, packageCount });
  }
  const rank = (entry: { distribution: string; version: string }) => {
    if (repository.codename && entry.version === repository.codename) return -1;
    const listed = preferred.indexOf(entry.distribution);
    return listed < 0 ? preferred.length : listed;
  };
  return stocked
    .sort((a, b) => rank(a) - rank(b) || a.distribution.localeCompare(b.distribution))
    .map(({ distro, version, packageCount }) => ({ distro, version, packageCount }));
}
