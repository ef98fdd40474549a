import type { Logger } from 'pino';
import { formatDistribution } from '@packyard/formats';
import { Advisory } from '@packyard/formats/recorded-distributions';
import { RecentlyUsed, type EventSourcing, type Fence, type PackyardClient, type RunningProjection } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import type { PublishedGeneration } from '@packyard/proto/packyard/repository/v1/publishing';
import type { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { ADVISORIES, type AdvisoryDocument } from '../advisories/advisories.projection';
import type { PublishablePackage } from '../packages/publishable-package';
import { REPOSITORIES, type RepositoryDocument } from '../projections/repositories.projection';
import { BuildScheduler, type BuildWork } from './build-scheduler';
import { CACHED_REPOSITORIES, type BuildOptions } from './generation.builder';
import { GenerationWorkflow } from './generation.workflow';
import { startIndexBlobsCleanup } from './index-blobs-cleanup.reaction';
import type { PackageSets } from './package-sets';
import { packagesShownIn, publicationTargets, targetsShowing, type PublishedRepository } from './publication-layout';

export interface PublisherOptions {
  es: EventSourcing;
  blobs: BlobStore;
  signing: PackyardClient<typeof SigningServiceDefinition>;
  /** how the metadata is written (the size above which a plain APT index is listed only) */
  build?: BuildOptions;
  logger: Logger;
  /** the package sets, fed by the publishable-packages projection */
  packageSets: PackageSets;
  /** how long a burst of uploads to one repository may keep arriving before a build starts */
  debounceMs?: number;
  /** distributions of one repository built at once */
  concurrency?: number;
  /** this replica among those sharing the module's store: names it in the publishing leases */
  holder: string;
  /** how long a repository's publishing lease lasts unless renewed */
  leaseMs: number;
  /** repositories this replica builds at once */
  maxBuilds: number;
  /** heard after every completed build (for the publish latency metric) */
  onPublished?: (kind: string, seconds: number) => void;
}

/**
 * Publishing in the repository module, from parts: the build scheduler (which
 * repositories changed, when to build, checkpointed), the package sets (from the
 * projection), the generation workflow (build → sign → publish through the command
 * handler, skipped when the inputs did not change) and the index-blob cleanup after a
 * repository's purge (a reaction). This class runs a repository's build over its
 * distributions and answers `?wait=published`.
 */
export class Publisher {
  private readonly scheduler: BuildScheduler;
  private readonly workflow: GenerationWorkflow;
  /** the packages of a repository when its last build (since this module started) completed, for the repositories built last */
  private readonly published = new RecentlyUsed<string, PackageIds>(CACHED_REPOSITORIES);
  private readonly waiters = new Map<string, Set<{ packageId: string; resolve: (published: boolean) => void }>>();
  /** repository → `distro/version` → the current generation as this publisher's last build found or made it */
  private readonly currentGenerations = new Map<string, Map<string, PublishedGeneration>>();
  private cleanup?: RunningProjection;

  constructor(private readonly options: PublisherOptions) {
    this.workflow = new GenerationWorkflow(options);
    this.scheduler = new BuildScheduler({
      es: options.es,
      logger: options.logger,
      debounceMs: options.debounceMs,
      holder: options.holder,
      leaseMs: options.leaseMs,
      maxBuilds: options.maxBuilds,
      build: (repositoryId, work, fence) => this.build(repositoryId, work, fence),
      forget: (repositoryId) => this.forget(repositoryId),
    });
  }

  async start(): Promise<void> {
    await this.scheduler.start();
    this.cleanup = await startIndexBlobsCleanup(this.options.es, this.options.blobs, this.scheduler);
  }

  async stop(): Promise<void> {
    await this.scheduler.stop();
    await this.cleanup?.stop();
  }

  /** resolves once every change recorded so far is published (or found already published) */
  async settled(): Promise<void> {
    await this.scheduler.seenUpTo(await this.options.es.events.lastPosition());
    await this.scheduler.idle();
  }

  /** resolves true once a completed build of the repository included the package, false after `timeoutMs` */
  async waitForPublication(repositoryId: string, packageId: string, timeoutMs: number): Promise<boolean> {
    if (this.published.get(repositoryId)?.has(packageId)) return true;
    const waiting = new Promise<boolean>((resolve) => {
      const waiters = this.waiters.get(repositoryId) ?? new Set();
      this.waiters.set(repositoryId, waiters);
      const waiter = {
        packageId,
        resolve: (published: boolean) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(published);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      waiters.add(waiter);
    });
    // published before this module started (or built before the repositories built since): the scheduler has nothing pending for it and the set holds it
    if (!this.published.has(repositoryId)) void this.publishedBeforeStart(repositoryId, packageId).then((found) => found && this.resolveWaiters(repositoryId, new Set([packageId])));
    return waiting;
  }

  /** the current generation of every distribution of the repository built (or found current) since this module started */
  generationsOf(repositoryId: string): PublishedGeneration[] {
    return [...(this.currentGenerations.get(repositoryId)?.values() ?? [])];
  }

  private async publishedBeforeStart(repositoryId: string, packageId: string): Promise<boolean> {
    const position = await this.options.es.events.lastPosition();
    await this.scheduler.seenUpTo(position);
    await this.options.es.caughtUp(position, 30_000);
    return !this.scheduler.pending(repositoryId) && (await this.options.packageSets.has(repositoryId, packageId));
  }

  private forget(repositoryId: string): void {
    this.workflow.forget(repositoryId);
    this.published.delete(repositoryId);
    this.currentGenerations.delete(repositoryId);
  }

  private async build(repositoryId: string, work: BuildWork, fence: Fence): Promise<void> {
    const { es, logger, packageSets } = this.options;
    // the projections hold every change the work was marked for
    await es.caughtUp(work.upTo, 120_000);
    // deleted (in its grace period) or purged: nothing is built, what was published stays as it was
    const document = await es.readModels.collection<RepositoryDocument>(REPOSITORIES).get(repositoryId);
    if (!document) return;
    const repository = toPublishedRepository(document);
    const targets = work.all ? publicationTargets(repository) : uniqueTargets([...work.uploads.values()].flatMap((upload) => targetsShowing(repository, upload)));
    const packages = await packageSets.of(repositoryId);
    const advisories = (await es.readModels.collection<AdvisoryDocument>(ADVISORIES).find({ repositoryId })).map((doc) => Advisory.fromJSON(doc.advisory));
    if (work.force) this.workflow.forgetKey(repositoryId);
    const started = performance.now();
    const date = new Date();
    const visibleIn = packagesShownIn(packages);
    let built = 0;
    await forEachLimited(targets, this.options.concurrency ?? 4, async (target) => {
      const visible = visibleIn(target);
      const { generation, built: made } = await this.workflow.publish(repository, target, visible, advisories, date, work.force, fence);
      if (made) built += 1;
      // made here or by another replica: `?wait=published` waits for the edge to serve this one
      const current = this.currentGenerations.get(repositoryId) ?? new Map<string, PublishedGeneration>();
      this.currentGenerations.set(repositoryId, current.set(formatDistribution(target), { targetDistribution: target, generation }));
    });
    logger.debug({ repositoryId, distributions: targets.length, built, packages: packages.length, ms: Math.round(performance.now() - started) }, 'indices published');
    if (built > 0) this.options.onPublished?.(repository.kind, (performance.now() - started) / 1000);
    const snapshot = idsOf(packages);
    this.published.set(repositoryId, snapshot);
    this.resolveWaiters(repositoryId, snapshot);
  }

  private resolveWaiters(repositoryId: string, published: PackageIds): void {
    for (const waiter of this.waiters.get(repositoryId) ?? []) if (published.has(waiter.packageId)) waiter.resolve(true);
  }
}

/** whether a package was in a build */
interface PackageIds {
  has(packageId: string): boolean;
}

/** a build's package ids, made a set at the first question (a `?wait=published`): not 100,000 ids per build of a large repository */
function idsOf(packages: readonly PublishablePackage[]): PackageIds {
  let ids: Set<string> | undefined;
  return { has: (packageId) => (ids ??= new Set(packages.map((pkg) => pkg.id))).has(packageId) };
}

const toPublishedRepository = (doc: RepositoryDocument): PublishedRepository => ({
  id: doc.id,
  kind: doc.kind === 'RPM' ? 'RPM' : 'DEB',
  workspaceId: doc.workspaceId,
  workspaceSlug: doc.workspaceSlug,
  ownerId: doc.ownerId,
  name: doc.name,
  codename: doc.codename,
  component: doc.component,
});

const uniqueTargets = <T extends { distro: string; version: string }>(targets: T[]) => [...new Map(targets.map((target) => [formatDistribution(target), target])).values()];

async function forEachLimited<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
