import type { ReadModelStore } from '@packyard/platform';
import { uploadDistributions } from '@packyard/formats/distributions';
import { PUBLICATIONS, REPOSITORIES } from './delivery.projection';
import { PublicationManifests, type BlobReader } from './publication-manifests';
import { readableGenerations, repositoryPath, stockedDistributions, type PublicationRecord, type RepositoryRecord, type StockedDistribution } from './served-file';
import { distributionsAt, ServedFiles, servedFiles } from './served-files';

/** files of loaded repositories held at once (a served file is well under 1 KB); the least recently asked-for go first */
const MAX_LOADED_FILES = 500_000;
/** how long a path that names no repository is answered from memory (a repository change clears them all) */
const ABSENT_FOR_MS = 5_000;
const MAX_ABSENT_PATHS = 10_000;

/** A repository as the edge answers it: its record and every URL path it serves, as one value swapped whole. */
export interface ServedRepository {
  record: RepositoryRecord;
  files: ServedFiles;
  stocked: readonly StockedDistribution[];
  /** distribution → the newest generation served */
  generations: ReadonlyMap<string, number>;
  /** the distributions whose files are loaded, and how many of their generations (see PublishedCatalog) */
  held: ReadonlyMap<string, Held>;
}

/** of a distribution's readable generations, the files of the newest, or of every one */
type Held = 'newest' | 'readable';

/** what a loaded repository counts against MAX_LOADED_FILES: its files, and one without them */
const heldBy = (served: ServedRepository) => Math.max(1, served.files.size);

/** `/deb/{slug}/{name}` of a URL path below a repository (one slice: the request path looks it up per request), or undefined */
function repositoryPathOf(path: string): string | undefined {
  if (!path.startsWith('/deb/') && !path.startsWith('/rpm/')) return undefined;
  const slugEnd = path.indexOf('/', 5);
  if (slugEnd < 0) return undefined;
  const nameEnd = path.indexOf('/', slugEnd + 1);
  const end = nameEnd < 0 ? path.length : nameEnd;
  if (slugEnd === 5 || end === slugEnd + 1) return undefined;
  return path.slice(0, end);
}

/** what names the repository at a path from repositoryPathOf */
function repositoryKeyOf(path: string): { path: string; kind: RepositoryRecord['kind']; workspaceSlug: string; name: string } {
  const slugEnd = path.indexOf('/', 5);
  return { path, kind: path.startsWith('/deb/') ? 'DEB' : 'RPM', workspaceSlug: path.slice(5, slugEnd), name: path.slice(slugEnd + 1) };
}

/**
 * The published state the edge answers from. Nothing is read at start: a repository is
 * loaded when it is first asked for (one read-model lookup of the repository by its path,
 * one of its publication records) with the files of the newest generation of one
 * distribution, the one published last (it holds the repository's current key files): its
 * manifest and parts from the blob store. The rest is read when a request first misses it
 * (see catchUp): another distribution's newest generation (a DEB repository publishes 14 or
 * more distributions, most of them empty, and its clients ask for one or two), and then a
 * distribution's retained generations (up to 8, kept readable for clients mid-update, whose
 * files are asked for in the minutes after a publication). Repositories are kept, least
 * recently used out first, bounded by the number of files held. File bodies are not read
 * here: the edge reads them on first request into its bounded body cache. A loaded
 * repository is rebuilt off the request path whenever the projection changes it; the swap
 * is one synchronous step, so a request sees one state or the other.
 */
export class PublishedCatalog {
  /** by repository id, least recently used first */
  private readonly loaded = new Map<string, ServedRepository>();
  /** the id last in `loaded`: asking for it again leaves the order as it is, without a delete and a set per request */
  private newestId?: string;
  private readonly idByPath = new Map<string, string>();
  private readonly absent = new Map<string, number>();
  /** lookups by path under way: a burst of first requests for one repository shares one */
  private readonly finding = new Map<string, Promise<ServedRepository | undefined>>();
  private loadedFiles = 0;
  /** per repository, the loads and rebuilds in turn */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly manifests: PublicationManifests;
  /** by repository and path, the checks under way after a miss (see catchUp): every miss of the path meanwhile shares one */
  private readonly catchingUp = new Map<string, Promise<void>>();
  private readonly generationWaiters = new Map<string, Set<{ wanted: ReadonlyMap<string, number>; resolve: (served: boolean) => void }>>();
  /** repositories read in since the start (at their first request, or again after an eviction), and dropped to keep the bound: a catalogue too small for its traffic shows as both climbing */
  readonly counts = { loads: 0, evictions: 0 };

  constructor(
    private readonly readModels: ReadModelStore,
    blobs: BlobReader,
    private readonly options: {
      /**
       * false in a process whose edge workers answer the port: it keeps what its gRPC calls
       * read (the generations served, the stocked distributions) and reads no manifest
       */
      files?: boolean;
      maxLoadedFiles?: number;
    } = {},
  ) {
    this.manifests = new PublicationManifests(blobs);
  }

  /**
   * The repository a `/deb/{slug}/{name}/…` or `/rpm/…` path belongs to: at once when it is
   * loaded (the hot path: two map lookups), else a promise of it loaded; undefined when no
   * served repository has that path.
   */
  repositoryAt(path: string): ServedRepository | undefined | Promise<ServedRepository | undefined> {
    const at = repositoryPathOf(path);
    if (at === undefined) return undefined;
    const id = this.idByPath.get(at);
    if (id !== undefined) {
      const served = this.loaded.get(id);
      if (served) {
        if (id !== this.newestId) {
          this.loaded.delete(id);
          this.loaded.set(id, served);
          this.newestId = id;
        }
        return served;
      }
    }
    const absentUntil = this.absent.get(at);
    if (absentUntil !== undefined) {
      if (absentUntil > Date.now()) return undefined;
      this.absent.delete(at);
    }
    let found = this.finding.get(at);
    if (!found) {
      found = this.find(repositoryKeyOf(at)).finally(() => this.finding.delete(at));
      this.finding.set(at, found);
    }
    return found;
  }

  private async find(key: ReturnType<typeof repositoryKeyOf>): Promise<ServedRepository | undefined> {
    const candidates = await this.readModels.collection<RepositoryRecord>(REPOSITORIES).find({ kind: key.kind, workspaceSlug: key.workspaceSlug, name: key.name });
    // a deleted repository's name may have been taken again
    const live = candidates.find((candidate) => !candidate.deleted);
    const served = live && (await this.load(live.id));
    if (!served) {
      if (this.absent.size >= MAX_ABSENT_PATHS) this.absent.clear();
      this.absent.set(key.path, Date.now() + ABSENT_FOR_MS);
    }
    return served;
  }

  /** files of the loaded repositories held now (what the bound counts) */
  get filesHeld(): number {
    return this.loadedFiles;
  }

  /** the repository loaded (read now if it was not), undefined when it is unknown or deleted */
  async load(repositoryId: string): Promise<ServedRepository | undefined> {
    const served = this.loaded.get(repositoryId);
    if (served) return served;
    await this.inTurn(repositoryId, async () => {
      if (this.loaded.has(repositoryId)) return;
      this.counts.loads++;
      await this.rebuild(repositoryId);
    });
    return this.loaded.get(repositoryId);
  }

  /** whether this replica serves, for every distribution given, that generation or a newer one */
  private servesGenerations(repositoryId: string, wanted: ReadonlyMap<string, number>): boolean {
    const served = this.loaded.get(repositoryId)?.generations;
    return [...wanted].every(([distribution, generation]) => (served?.get(distribution) ?? -1) >= generation);
  }

  /** resolves true once this replica serves the generations (see servesGenerations), false after `timeoutMs` */
  async waitForGenerations(repositoryId: string, wanted: ReadonlyMap<string, number>, timeoutMs: number): Promise<boolean> {
    await this.load(repositoryId);
    if (this.servesGenerations(repositoryId, wanted)) return true;
    return new Promise((resolve) => {
      const waiters = this.generationWaiters.get(repositoryId) ?? new Set();
      this.generationWaiters.set(repositoryId, waiters);
      const waiter = {
        wanted,
        resolve: (served: boolean) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          if (waiters.size === 0 && this.generationWaiters.get(repositoryId) === waiters) this.generationWaiters.delete(repositoryId);
          resolve(served);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      waiters.add(waiter);
    });
  }

  /**
   * After a request for a file at `path` this replica does not serve: the repository as it is
   * once a generation newer than the one loaded, if the read model has one, is loaded, and
   * the newest generation of each distribution the path may be in (distributionsAt), and
   * then, if the path is still missing, their retained generations. Edge workers (and a
   * cluster's replicas) are told of a publication each in its own time, and a client that
   * read the new InRelease or repomd.xml from one may ask another for the files it names
   * before that one has rebuilt: dnf and apt spread their requests over several connections.
   * One read of the repository's publication records per path, shared by the misses of it
   * meanwhile and in turn with the rebuilds; a file that is simply not there costs that.
   */
  async catchUp(repositoryId: string, path: string): Promise<ServedRepository | undefined> {
    const key = `${repositoryId}|${path}`;
    let checking = this.catchingUp.get(key);
    if (!checking) {
      checking = this.inTurn(repositoryId, async () => {
        const current = this.loaded.get(repositoryId);
        if (!current) return;
        const readable = readableGenerations(await this.readModels.collection<PublicationRecord>(PUBLICATIONS).find({ repositoryId }));
        const wanted = distributionsAt(current.record.kind, path.slice(repositoryPath(current.record).length + 1), readable);
        const newer = readable.some((publication) => publication.generation > (current.generations.get(publication.distribution) ?? -1));
        const wantedAt = (depth: Held) => new Map(wanted.map((distribution) => [distribution, depth]));
        if (newer || wanted.some((distribution) => !current.held.has(distribution))) await this.rebuild(repositoryId, wantedAt('newest'));
        const now = this.loaded.get(repositoryId);
        if (now && !now.files.get(path) && wanted.some((distribution) => now.held.get(distribution) === 'newest')) await this.rebuild(repositoryId, wantedAt('readable'));
      }).finally(() => this.catchingUp.delete(key));
      this.catchingUp.set(key, checking);
    }
    await checking;
    return this.loaded.get(repositoryId);
  }

  /** the distributions of a repository whose published index holds packages (none while it is unknown) */
  async stocked(repositoryId: string): Promise<readonly StockedDistribution[]> {
    return (await this.load(repositoryId))?.stocked ?? [];
  }

  /**
   * The projection changed the repository: a loaded one (or one being loaded, or waited
   * for) is rebuilt; any other is read when it is next asked for. Paths remembered as naming no repository
   * are forgotten, since this one may now have one of them.
   */
  refresh(repositoryId: string): Promise<void> {
    this.absent.clear();
    // a wait may have begun before this replica knew the repository (its creation still on the way)
    if (!this.loaded.has(repositoryId) && !this.chains.has(repositoryId) && !this.generationWaiters.has(repositoryId)) return Promise.resolve();
    return this.inTurn(repositoryId, () => this.rebuild(repositoryId));
  }

  private inTurn(repositoryId: string, task: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(repositoryId) ?? Promise.resolve()).then(task);
    const settled = next.catch(() => undefined);
    this.chains.set(repositoryId, settled);
    void settled.then(() => {
      if (this.chains.get(repositoryId) === settled) this.chains.delete(repositoryId);
    });
    return next;
  }

  /**
   * Reads the repository again, with the files of what it held, of the newest generation of
   * the distribution published last, and of `wanted` (each kept at the most it was held at).
   */
  private async rebuild(repositoryId: string, wanted: ReadonlyMap<string, Held> = new Map()): Promise<void> {
    const repository = await this.readModels.collection<RepositoryRecord>(REPOSITORIES).get(repositoryId);
    if (!repository || repository.deleted) return this.install(repositoryId, undefined);
    const publications = await this.readModels.collection<PublicationRecord>(PUBLICATIONS).find({ repositoryId });
    const readable = readableGenerations(publications);
    const newest = new Map<string, number>();
    for (const publication of readable) newest.set(publication.distribution, Math.max(newest.get(publication.distribution) ?? -1, publication.generation));
    let files = ServedFiles.NONE;
    const held = new Map<string, Held>();
    if (this.options.files !== false) {
      const previous = this.loaded.get(repositoryId);
      const lastPublished = readable.at(-1)?.distribution;
      for (const [distribution, depth] of [...(lastPublished ? [[lastPublished, 'newest'] as const] : []), ...(previous?.held ?? []), ...wanted]) {
        if (held.get(distribution) !== 'readable') held.set(distribution, depth);
      }
      const generations = await Promise.all(
        readable
          .filter((publication) => held.get(publication.distribution) === 'readable' || (held.has(publication.distribution) && publication.generation === newest.get(publication.distribution)))
          .map(async (publication) => {
            const { sources, repositoryFiles } = await this.manifests.manifest(publication.manifest);
            return { publication, sources, repositoryFiles };
          }),
      );
      files = servedFiles(repository, generations, previous?.files, readable);
    }
    const stocked = stockedDistributions(repository, readable, uploadDistributions(repository.kind));
    this.install(repositoryId, { record: repository, files, stocked, generations: newest, held });
  }

  private install(repositoryId: string, served: ServedRepository | undefined) {
    const previous = this.loaded.get(repositoryId);
    if (previous) {
      this.idByPath.delete(repositoryPath(previous.record));
      this.loaded.delete(repositoryId);
      this.loadedFiles -= heldBy(previous);
      if (this.newestId === repositoryId) this.newestId = undefined;
    }
    if (!served) return;
    this.loaded.set(repositoryId, served);
    this.newestId = repositoryId;
    this.idByPath.set(repositoryPath(served.record), repositoryId);
    this.loadedFiles += heldBy(served);
    for (const waiter of this.generationWaiters.get(repositoryId) ?? []) if (this.servesGenerations(repositoryId, waiter.wanted)) waiter.resolve(true);
    for (const id of this.loaded.keys()) {
      if (this.loadedFiles <= (this.options.maxLoadedFiles ?? MAX_LOADED_FILES) || id === repositoryId) break;
      this.install(id, undefined);
      this.counts.evictions++;
    }
  }
}
