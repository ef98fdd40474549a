import type { Readable } from 'node:stream';
import type { ReadModelStore } from '@packyard/platform';
import { PUBLICATIONS, REPOSITORIES } from './delivery.projection';
import { uploadDistributions } from '@packyard/formats';
import { listedPackages, repositoryPath, servedFiles, stockedDistributions, type PublicationRecord, type RepositoryRecord, type ServedFile, type StockedDistribution } from './served-file';

/** metadata files up to this size are answered from memory (Packages, repodata, InRelease) */
const IN_MEMORY_FILE_LIMIT = 4 * 1024 * 1024;

export interface BlobReader {
  get(key: string): Promise<Readable>;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

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
  /** per repository, per distribution: the digests of the packages its newest generation lists */
  private readonly listedOf = new Map<string, Map<string, Set<string>>>();
  private readonly refreshes = new Map<string, Promise<void>>();
  private readonly packageWaiters = new Map<string, Set<{ distribution: string; sha256: string; resolve: (served: boolean) => void }>>();

  constructor(
    private readonly readModels: ReadModelStore,
    private readonly blobs: BlobReader,
  ) {}

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

  /**
   * whether the index this replica serves for the distribution lists the package with this
   * digest: its pool file may be served already for another distribution of the same
   * distro, or still for a retained generation after a deletion
   */
  servesPackage(repositoryId: string, distribution: string, sha256: string): boolean {
    return this.listedOf.get(repositoryId)?.get(distribution)?.has(sha256) === true;
  }

  /** resolves true once the generation this replica serves for the distribution lists the package, false after `timeoutMs` */
  waitForPackage(repositoryId: string, distribution: string, sha256: string, timeoutMs: number): Promise<boolean> {
    if (this.servesPackage(repositoryId, distribution, sha256)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiters = this.packageWaiters.get(repositoryId) ?? new Set();
      this.packageWaiters.set(repositoryId, waiters);
      const waiter = {
        distribution,
        sha256,
        resolve: (served: boolean) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          if (waiters.size === 0 && this.packageWaiters.get(repositoryId) === waiters) this.packageWaiters.delete(repositoryId);
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

  async refreshAll(): Promise<void> {
    const repositories = await this.readModels.collection<RepositoryRecord & { id: string }>(REPOSITORIES).find({});
    for (const repository of repositories) await this.refresh(repository.id);
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
    if (!repository || repository.deleted) return this.install(repositoryId, undefined, new Map(), [], new Map());
    const publications = await this.readModels.collection<PublicationRecord>(PUBLICATIONS).find({ repositoryId });
    const files = servedFiles(repository, publications);
    const stocked = stockedDistributions(repository, publications, uploadDistributions(repository.kind));
    const listed = listedPackages(publications);
    // bodies already in memory are reused by blob key (content-addressed: same key, same bytes)
    const loaded = new Map<string, Buffer>();
    for (const path of this.pathsOf.get(repositoryId) ?? []) {
      const current = this.files.get(path);
      if (current?.body) loaded.set(current.blobKey, current.body);
    }
    for (const file of files.values()) {
      if (file.isPackage || file.size > IN_MEMORY_FILE_LIMIT) continue;
      let body = loaded.get(file.blobKey);
      if (!body) {
        body = await readAll(await this.blobs.get(file.blobKey));
        loaded.set(file.blobKey, body);
      }
      file.body = body;
    }
    this.install(repositoryId, repository, files, stocked, listed);
  }

  private install(repositoryId: string, repository: RepositoryRecord | undefined, files: Map<string, ServedFile>, stocked: StockedDistribution[], listed: Map<string, Set<string>>) {
    const previous = this.byId.get(repositoryId);
    if (previous) this.byPath.delete(repositoryPath(previous));
    for (const path of this.pathsOf.get(repositoryId) ?? []) this.files.delete(path);
    if (!repository) {
      this.byId.delete(repositoryId);
      this.pathsOf.delete(repositoryId);
      this.stockedOf.delete(repositoryId);
      this.listedOf.delete(repositoryId);
      return;
    }
    this.byId.set(repositoryId, repository);
    this.stockedOf.set(repositoryId, stocked);
    this.listedOf.set(repositoryId, listed);
    this.byPath.set(repositoryPath(repository), repository);
    for (const [path, file] of files) this.files.set(path, file);
    this.pathsOf.set(repositoryId, [...files.keys()]);
    for (const waiter of this.packageWaiters.get(repositoryId) ?? []) if (this.servesPackage(repositoryId, waiter.distribution, waiter.sha256)) waiter.resolve(true);
  }
}
