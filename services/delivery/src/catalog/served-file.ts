import type { IndexFile } from '@packyard/proto/packyard/repository/v1/events';
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
  files: IndexFile[];
  /** Last-Modified (ms) of the paths whose bytes change between generations (see entryPointDates) */
  lastModified: Record<string, number>;
}

/** A file the edge answers, with every header it sends precomputed. */
export interface ServedFile {
  repositoryId: string;
  blobKey: string;
  size: number;
  sha256: string;
  /** a package (pool file, .rpm): counted as a download */
  isPackage: boolean;
  etag: string;
  lastModifiedMs: number;
  /** 206 headers without content-length and content-range */
  headers: string[];
  /** 200 headers, content-length included */
  fullHeaders: string[];
  /** 304 headers */
  notModifiedHeaders: string[];
  /** small metadata files are held in memory; packages are streamed from the blob store */
  body?: Buffer;
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

/**
 * DESIGN §4: a DEB file lives below `{repositoryUrl}/{distro}` (dists/{version}/…, pool/…),
 * an RPM file below `{repositoryUrl}/{distro}/{version}` (repodata/…, packages).
 */
export function filePath(repository: RepositoryRecord, publication: Pick<PublicationRecord, 'distro' | 'version'>, path: string): string {
  const root = repository.kind === 'DEB' ? publication.distro : `${publication.distro}/${publication.version}`;
  return `${repositoryPath(repository)}/${root}/${path}`;
}

export function servedFile(repositoryId: string, file: IndexFile, lastModifiedMs: number): ServedFile {
  const etag = strongEtag(file.sha256);
  const lastModified = httpDate(lastModifiedMs);
  const cacheControl = isContentAddressed(file) ? IMMUTABLE_CACHE_CONTROL : REVALIDATE_CACHE_CONTROL;
  const validators = ['etag', etag, 'last-modified', lastModified, 'cache-control', cacheControl, 'vary', 'Authorization'];
  const headers = ['content-type', file.contentType || contentTypeOf(file.path), 'accept-ranges', 'bytes', ...validators];
  return {
    repositoryId,
    blobKey: file.blobKey,
    size: file.size,
    sha256: file.sha256,
    isPackage: file.package,
    etag,
    lastModifiedMs,
    headers,
    fullHeaders: [...headers, 'content-length', String(file.size)],
    notModifiedHeaders: validators,
  };
}

/** HTTP dates have whole seconds: a Last-Modified finer than that would never compare equal */
const wholeSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000) * 1000;

/**
 * Last-Modified of the paths that change meaning (InRelease, Release, Packages, repomd.xml):
 * strictly later than the previous generation's whenever the bytes differ. Two generations
 * published within one second would otherwise share a date, and a client asking
 * If-Modified-Since with the first one's would be told 304 about the second forever.
 */
export function entryPointDates(previous: PublicationRecord | undefined, files: readonly IndexFile[], publishedAt: string): Record<string, number> {
  const own = wholeSeconds(publishedAt);
  const dates: Record<string, number> = {};
  for (const file of files) {
    if (isContentAddressed(file)) continue;
    const before = previous?.files.find((candidate) => candidate.path === file.path);
    const beforeDate = before ? (previous!.lastModified?.[file.path] ?? wholeSeconds(previous!.publishedAt)) : undefined;
    if (beforeDate === undefined) dates[file.path] = own;
    else if (before!.sha256 === file.sha256) dates[file.path] = beforeDate;
    else dates[file.path] = Math.max(own, beforeDate + 1000);
  }
  return dates;
}

/**
 * Every URL path of a repository and its file, from the publications delivery keeps:
 * per distribution the newest generation and the ones it retains. A path keeps the date
 * of the oldest generation that had the same bytes under it (so If-Modified-Since stays
 * true across republishing), and the newest generation decides what a path holds.
 */
export function servedFiles(repository: RepositoryRecord, publications: readonly PublicationRecord[]): Map<string, ServedFile> {
  const readable: PublicationRecord[] = [];
  for (const list of byDistribution(publications).values()) {
    const newest = newestOf(list);
    const kept = new Set([newest.generation, ...newest.retainedGenerations]);
    readable.push(...list.filter((publication) => kept.has(publication.generation)));
  }
  readable.sort((a, b) => a.publishedAt.localeCompare(b.publishedAt) || a.generation - b.generation);
  const files = new Map<string, ServedFile>();
  for (const publication of readable) {
    const at = wholeSeconds(publication.publishedAt);
    for (const file of publication.files) {
      const path = filePath(repository, publication, file.path);
      const previous = files.get(path);
      if (previous && previous.sha256 === file.sha256) continue;
      files.set(path, servedFile(repository.id, file, publication.lastModified?.[file.path] ?? at));
    }
  }
  return files;
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
    const newest = newestOf(list);
    const packageCount = newest.files.filter((file) => file.package).length;
    if (packageCount > 0) stocked.push({ distribution, distro: newest.distro, version: newest.version, packageCount });
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
