import type { ReadModelStore } from '@packyard/platform';
import { uploadDistributions } from '@packyard/formats';
import { PUBLICATIONS, REPOSITORIES } from './delivery.projection';
import { PublicationManifests, readAll, type BlobReader } from './publication-manifests';
import { readableGenerations, repositoryPath, servedFiles, stockedDistributions, type PublicationRecord, type RepositoryRecord, type ServedFile, type StockedDistribution } from './served-file';

/** metadata files up to this size are answered from memory (Packages, repodata, InRelease) */
const IN_MEMORY_FILE_LIMIT = 4 * 1024 * 1024;
/** repositories rebuilt at once at start */
const REFRESH_CONCURRENCY = 8;

/**
 * The published state the edge answers from, in memory: URL path → file, repository
 * path → repository. It is rebuilt per repository from delivery's read model whenever
 * the projection changes it (and for all at start), off the request path; the swap of a
 * repository's files is one synchronous step, so a request sees one state or the other.
 */
export class PublishedCatalog {
  private readonly files = new Map<string, ServedFile>();
  private readonly pathsOf = new Map<string, string[]>();
  private readonly byPath = new Map<string, RepositoryRecord>();
  private readonly byId = new Map<string, RepositoryRecord>();
  private readonly stockedOf = new Map<string, StockedDistribution[]>();
  private readonly refreshes = new Map<string, Promise<void>>();
  /** repository → distribution → the newest generation served */
  private readonly generations = new Map<string, Map<string, number>>();
  private readonly manifests: PublicationManifests;
  private readonly generationWaiters = new Map<string, Set<{ wanted: ReadonlyMap<string, number>; resolve: (served: boolean) => void }>>();

  constructor(
    private readonly readModels: ReadModelStore,
    private readonly blobs: BlobReader,
  ) {
    this.manifests = new PublicationManifests(blobs);
  }

  file(path: string): ServedFile | undefined {
    return this.files.get(path);
  }

  /** the repository a `/deb/{slug}/{name}/…` or `/rpm/…` path belongs to */
  repositoryOf(path: string): RepositoryRecord | undefined {
    let slash = path.indexOf('/', 5);
    if (slash < 0) return undefined;
    slash = path.indexOf('/', slash + 1);
    return this.byPath.get(slash < 0 ? path : path.slice(0, slash));
  }

  repository(id: string): RepositoryRecord | undefined {
    return this.byId.get(id);
  }

  /** whether this replica serves, for every distribution given, that generation or a newer one */
  servesGenerations(repositoryId: string, wanted: ReadonlyMap<string, number>): boolean {
    const served = this.generations.get(repositoryId);
    return [...wanted].every(([distribution, generation]) => (served?.get(distribution) ?? -1) >= generation);
  }

  /** resolves true once this replica serves the generations (see servesGenerations), false after `timeoutMs` */
  waitForGenerations(repositoryId: string, wanted: ReadonlyMap<string, number>, timeoutMs: number): Promise<boolean> {
    if (this.servesGenerations(repositoryId, wanted)) return Promise.resolve(true);
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

  /** the distributions of a repository whose published index holds packages (none until it is known) */
  stocked(repositoryId: string): readonly StockedDistribution[] {
    return this.stockedOf.get(repositoryId) ?? [];
  }

  /** every repository, a few at a time: most of a rebuild is waiting for the blob store */
  async refreshAll(): Promise<void> {
    const repositories = await this.readModels.collection<RepositoryRecord & { id: string }>(REPOSITORIES).find({});
    let next = 0;
    const worker = async () => {
      while (next < repositories.length) await this.refresh(repositories[next++].id);
    };
    await Promise.all(Array.from({ length: REFRESH_CONCURRENCY }, worker));
  }

  /** rebuilds one repository's files; refreshes of the same repository run one after another */
  refresh(repositoryId: string): Promise<void> {
    const next = (this.refreshes.get(repositoryId) ?? Promise.resolve()).then(() => this.rebuild(repositoryId));
    const settled = next.catch(() => undefined);
    this.refreshes.set(repositoryId, settled);
    void settled.then(() => {
      if (this.refreshes.get(repositoryId) === settled) this.refreshes.delete(repositoryId);
    });
    return next;
  }

  private async rebuild(repositoryId: string): Promise<void> {
    const repository = await this.readModels.collection<RepositoryRecord>(REPOSITORIES).get(repositoryId);
    if (!repository || repository.deleted) return this.install(repositoryId, undefined, new Map(), []);
    const publications = await this.readModels.collection<PublicationRecord>(PUBLICATIONS).find({ repositoryId });
    const readable = readableGenerations(publications);
    const generations = await Promise.all(
      readable.map(async (publication) => {
        const { files, repositoryFiles } = await this.manifests.manifest(publication.manifest);
        return { publication, files, repositoryFiles };
      }),
    );
    const served = new Map<string, ServedFile>();
    for (const path of this.pathsOf.get(repositoryId) ?? []) served.set(path, this.files.get(path)!);
    const files = servedFiles(repository, generations, served);
    const newest = new Map<string, number>();
    for (const publication of readable) newest.set(publication.distribution, Math.max(newest.get(publication.distribution) ?? -1, publication.generation));
    const stocked = stockedDistributions(repository, readable, uploadDistributions(repository.kind));
    // bodies already in memory are reused by blob key (content-addressed: same key, same bytes)
    const loaded = new Map<string, Buffer>();
    for (const current of served.values()) if (current.body) loaded.set(current.blobKey, current.body);
    for (const file of files.values()) {
      if (file.isPackage || file.size > IN_MEMORY_FILE_LIMIT) continue;
      let body = loaded.get(file.blobKey);
      if (!body) {
        body = await readAll(await this.blobs.get(file.blobKey));
        loaded.set(file.blobKey, body);
      }
      file.body = body;
    }
    this.install(repositoryId, repository, files, stocked, newest);
  }

  private install(repositoryId: string, repository: RepositoryRecord | undefined, files: Map<string, ServedFile>, stocked: StockedDistribution[], generations = new Map<string, number>()) {
    const previous = this.byId.get(repositoryId);
    if (previous) this.byPath.delete(repositoryPath(previous));
    for (const path of this.pathsOf.get(repositoryId) ?? []) this.files.delete(path);
    if (!repository) {
      this.byId.delete(repositoryId);
      this.pathsOf.delete(repositoryId);
      this.generations.delete(repositoryId);
      this.stockedOf.delete(repositoryId);
      return;
    }
    this.byId.set(repositoryId, repository);
    this.stockedOf.set(repositoryId, stocked);
    this.byPath.set(repositoryPath(repository), repository);
    for (const [path, file] of files) this.files.set(path, file);
    this.pathsOf.set(repositoryId, [...files.keys()]);
    this.generations.set(repositoryId, generations);
    for (const waiter of this.generationWaiters.get(repositoryId) ?? []) if (this.servesGenerations(repositoryId, waiter.wanted)) waiter.resolve(true);
  }
}
