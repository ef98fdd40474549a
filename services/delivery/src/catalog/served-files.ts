import type { IndexFile } from '@packyard/proto/packyard/repository/v1/events';
import { encodedAlike } from './publication-manifests';
import { contentTypeOf, isContentAddressed, repositoryPath, ServedFile, type LoadedPublication, type NewFileDates, type PublicationRecord, type RepositoryRecord } from './served-file';

/**
 * One readable generation's files below one root (its distribution's, or the repository's
 * for the public keys), by path relative to that root. Made once per generation and kept
 * while the generation stays readable: a rebuild after one more generation makes one layer,
 * whatever the number of generations retained.
 */
interface ServedLayer {
  files: ReadonlyMap<string, ServedFile>;
  /** the served files this layer made; the rest it shares with older layers */
  made: number;
  /**
   * the file lists it was made of (a manifest's own files and its parts), when no path is in
   * two of them: the next generation's layer starts from this one's files and makes only
   * those of the lists it does not share (layerOnto)
   */
  sources?: ReadonlySet<readonly IndexFile[]>;
}

/** `/`: where a root ends */
const SLASH = 0x2f;

/**
 * Every URL path a repository serves, as layers per root, newest first: the newest
 * generation that lists a path decides what it holds, and a retired generation leaves by
 * dropping its layer. A lookup is a map lookup per layer until one has the path (one for
 * what the newest generation lists).
 */
export class ServedFiles {
  static readonly NONE = new ServedFiles('', 1, new Map(), new Map());

  /** served files held (each made once, however many layers share it), what a loaded repository counts against the catalogue's bound */
  readonly size: number;

  constructor(
    private readonly repositoryRoot: string,
    /** path segments from the repository's URL to a distribution's root: 1 for DEB (`{distro}`), 2 for RPM (`{distro}/{version}`) */
    private readonly depth: 1 | 2,
    /** root → its layers, newest first */
    private readonly roots: ReadonlyMap<string, readonly ServedLayer[]>,
    /** by the root, the generation and its manifest: a later build reuses a layer only for the same three */
    private readonly layers: ReadonlyMap<string, ServedLayer>,
  ) {
    let size = 0;
    for (const layer of layers.values()) size += layer.made;
    this.size = size;
  }

  get(path: string): ServedFile | undefined {
    const length = this.repositoryRoot.length;
    if (!path.startsWith(this.repositoryRoot) || path.charCodeAt(length) !== SLASH) return undefined;
    let end = length;
    for (let segment = 0; segment < this.depth && end >= 0; segment++) end = path.indexOf('/', end + 1);
    if (end > 0) {
      const found = newestIn(this.roots.get(path.slice(0, end)), path.slice(end + 1));
      if (found) return found;
    }
    return newestIn(this.roots.get(this.repositoryRoot), path.slice(length + 1));
  }

  /** the layer a previous build made under this key, to be kept as it is */
  layer(key: string): ServedLayer | undefined {
    return this.layers.get(key);
  }

  /** the newest layer below `root`: what a path there resolved to first */
  newestLayer(root: string): ServedLayer | undefined {
    return this.roots.get(root)?.[0];
  }
}

function newestIn(layers: readonly ServedLayer[] | undefined, relative: string): ServedFile | undefined {
  if (!layers) return undefined;
  for (const layer of layers) {
    const file = layer.files.get(relative);
    if (file) return file;
  }
  return undefined;
}

/**
 * DESIGN §4: a DEB file lives below `{repositoryUrl}/{distro}` (dists/{version}/…, pool/…),
 * an RPM file below `{repositoryUrl}/{distro}/{version}` (repodata/…, packages).
 */
const distributionRoot = (repositoryRoot: string, kind: RepositoryRecord['kind'], publication: Pick<PublicationRecord, 'distro' | 'version'>) =>
  `${repositoryRoot}/${kind === 'DEB' ? publication.distro : `${publication.distro}/${publication.version}`}`;

/**
 * The distributions whose generations may list a path below a repository (`relative` to its
 * URL): the one the path names (DEB `{distro}/dists/{version}/…`, or a pool file's
 * `…/{distro}/{version}/{file}` as publication-layout.ts places it; RPM
 * `{distro}/{version}/…`), else every one below the path's root.
 */
export function distributionsAt(kind: RepositoryRecord['kind'], relative: string, publications: readonly PublicationRecord[]): string[] {
  const segments = relative.split('/');
  const [distro, second] = segments;
  const inRoot = publications.filter((publication) => publication.distro === distro && (kind === 'DEB' || publication.version === second));
  const version = kind === 'RPM' ? second : second === 'dists' ? segments[2] : segments.at(-3) === distro ? segments.at(-2) : undefined;
  const named = inRoot.filter((publication) => publication.version === version);
  return [...new Set((named.length > 0 ? named : inRoot).map((publication) => publication.distribution))];
}

/** HTTP dates have whole seconds: a Last-Modified finer than that would never compare equal */
const wholeSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000) * 1000;

/**
 * The files of a repository's readable generations (oldest first), their repository files
 * (the public keys) included, reusing the layers of `previous` (what the edge answered so
 * far) for the generations it had. Last-Modified: a path keeps the date it had while its
 * bytes stay the same (in an older readable generation, or in what the edge answered so
 * far), so If-Modified-Since stays true across republishing; an entry point whose bytes
 * changed (InRelease, Release, Packages, repomd.xml) moves strictly later than before, or
 * two generations published within one second would share a date and a client holding the
 * first one's would be told 304 about the second forever. `records`, the records of every
 * readable generation, loaded or not, bound the date an entry point of a generation loaded
 * without its predecessors may have been served with (see entryPointFloor).
 */
export function servedFiles(repository: RepositoryRecord, generations: readonly LoadedPublication[], previous: ServedFiles = ServedFiles.NONE, records: readonly PublicationRecord[] = []): ServedFiles {
  const repositoryRoot = repositoryPath(repository);
  const roots = new Map<string, ServedLayer[]>();
  const layers = new Map<string, ServedLayer>();
  const served = previous === ServedFiles.NONE ? undefined : previous;
  const add = (root: string, publication: PublicationRecord, sources: readonly (readonly IndexFile[])[], part: string) => {
    if (sources.every((source) => source.length === 0)) return;
    const key = `${root}|${publication.id}|${publication.manifest.sha256}|${part}`;
    const older = roots.get(root) ?? [];
    const newLayer = () => {
      const dates = { own: wholeSeconds(publication.publishedAt), entryPoints: entryPointFloor(publication, records) };
      const before = (path: string) => newestIn(older, path) ?? served?.get(`${root}/${path}`);
      // the layer a path of this root resolves to when this one does not have it
      const base = older[0] ?? served?.newestLayer(root);
      return (base && layerOnto(base, repository.id, sources, dates, before)) ?? layerOf(repository.id, sources, dates, before);
    };
    const layer = previous.layer(key) ?? newLayer();
    roots.set(root, [layer, ...older]);
    layers.set(key, layer);
  };
  for (const { publication, sources, repositoryFiles = [] } of generations) {
    add(distributionRoot(repositoryRoot, repository.kind, publication), publication, sources, 'distribution');
    add(repositoryRoot, publication, [repositoryFiles], 'repository');
  }
  return new ServedFiles(repositoryRoot, repository.kind === 'DEB' ? 1 : 2, roots, layers);
}

/**
 * The earliest Last-Modified of a generation's entry point that no file served before it
 * holds (its predecessors unloaded, or the path new): a changed entry point moves a second
 * past its predecessor's date (layerOf), so one of a generation published within the same
 * second as the k readable ones before it may have been served up to k seconds after its
 * own date, and a date not past that could tell a client holding it 304.
 */
function entryPointFloor(publication: PublicationRecord, records: readonly PublicationRecord[]): number {
  let floor = wholeSeconds(publication.publishedAt);
  for (const older of records) {
    if (older.distribution === publication.distribution && older.generation < publication.generation) floor = Math.max(floor, wholeSeconds(older.publishedAt) + (publication.generation - older.generation) * 1000);
  }
  return floor;
}

/** one generation's files below a root, dated from `dates`; `before` finds what the root served at a relative path until this generation */
function layerOf(repositoryId: string, sources: readonly (readonly IndexFile[])[], dates: NewFileDates, before: (path: string) => ServedFile | undefined): ServedLayer {
  const files = new Map<string, ServedFile>();
  let made = 0;
  let listed = 0;
  for (const source of sources) {
    for (const file of source) made += placed(files, repositoryId, file, dates, files.get(file.path) ?? before(file.path));
    listed += source.length;
  }
  return { files, made, sources: files.size === listed ? new Set(sources) : undefined };
}

/**
 * The same layer as layerOf's, made from `base` (the layer `before` looks in first): a list
 * both generations name holds the same entries, which base already resolved, so only the
 * lists base was not made of are gone through. One more package in 100,000 goes through a
 * part of about 1,000 files and the manifest's own, not 100,000 (a quarter of a second in
 * each edge worker at every publication). Undefined when a path is in two lists: layerOf
 * then decides as it always has.
 */
function layerOnto(base: ServedLayer, repositoryId: string, sources: readonly (readonly IndexFile[])[], dates: NewFileDates, before: (path: string) => ServedFile | undefined): ServedLayer | undefined {
  const madeOf = base.sources;
  if (!madeOf) return undefined;
  const shared = new Set(sources.filter((source) => madeOf.has(source)));
  const files = new Map(base.files);
  for (const source of madeOf) if (!shared.has(source)) for (const file of source) files.delete(file.path);
  let made = 0;
  let listed = 0;
  for (const source of sources) {
    listed += source.length;
    if (shared.has(source)) continue;
    // a path of a list both share would be found here, and layerOf decide: the count below sends it there
    for (const file of source) made += placed(files, repositoryId, file, dates, files.get(file.path) ?? before(file.path));
  }
  return files.size === listed ? { files, made, sources: new Set(sources) } : undefined;
}

/** puts the file at its path, as `earlier` if that answers the same (see sameFile), else as a served file made now: answers 1 if made */
function placed(files: Map<string, ServedFile>, repositoryId: string, file: IndexFile, dates: NewFileDates, earlier: ServedFile | undefined): 0 | 1 {
  // unchanged: the same entry (one more package in 100,000 makes one entry, not 100,000 with their header lists)
  if (earlier && sameFile(earlier, file)) {
    files.set(file.path, earlier);
    return 0;
  }
  // a file new to the root is dated at its first use, as its entry is read (most never are)
  let date: number | NewFileDates = dates;
  if (earlier) {
    if (earlier.sha256 === file.sha256) date = earlier.lastModifiedMs;
    else date = isContentAddressed(file) ? dates.own : Math.max(dates.own, earlier.lastModifiedMs + 1000);
  }
  files.set(file.path, new ServedFile(repositoryId, file, date));
  return 1;
}

/** whether `served` answers exactly what a served file made of `file` at its path would (the date is kept either way); an entry of a part both generations share is the same object */
const sameFile = (served: ServedFile, file: IndexFile) =>
  served.entry === file ||
  encodedAlike(served.entry, file) ||
  (served.sha256 === file.sha256 &&
    served.blobKey === file.blobKey &&
    served.size === file.size &&
    served.isPackage === file.package &&
    served.contentType === (file.contentType || contentTypeOf(file.path)));
