import type { Logger } from 'pino';
import { formatDistribution, type Distribution } from '@packyard/formats';
import { LeaseLostError, type EventSourcing, type Fence, type Lease, type RecordedEvent, type Subscription } from '@packyard/platform';
import { followedEvent, purgedRepositoryId } from './followed-events';

/** what changed in a repository since its last build */
export interface BuildWork {
  /** every distribution, not only the ones `uploads` show in */
  all: boolean;
  /** the upload distributions of the packages stored or deleted, once each (by `distro/version`) */
  uploads: Map<string, Distribution>;
  /** build and sign even if the inputs are those of the current generation (the signing keys changed) */
  force: boolean;
  /** the log position of the first change not yet published: the checkpoint stays before it */
  since: number;
  /** the log position of the last change: the projections must have reached it before the build reads them */
  upTo: number;
}

export interface BuildSchedulerOptions {
  es: EventSourcing;
  logger: Logger;
  /** builds the repository's changed distributions, its appends fenced by the lease; a rejection retries the same work later */
  build: (repositoryId: string, work: BuildWork, fence: Fence) => Promise<void>;
  /** a repository is purged: what was kept for it goes */
  forget: (repositoryId: string) => void;
  /**
   * how long a burst of uploads to one repository may keep arriving before a build starts
   * (5 ms): a build started at once ran beside the upload's own answer, which then took
   * 40–100 ms instead of 20–35 ms, and the package was published no sooner
   */
  debounceMs?: number;
  /** names this replica in the leases (unique per process) */
  holder: string;
  /** how long a repository's lease lasts unless renewed: how long the repositories of a replica that died wait for another */
  leaseMs: number;
  /** repositories this replica builds at once; more wait for a slot, or are built by another replica meanwhile */
  maxBuilds: number;
}

/** the checkpoint's name in the module's read-model store */
export const BUILD_CHECKPOINT = 'publisher-builds';
const RETRY_MS = 1_000;
/** how soon a replica asks again for a repository another replica is building */
const LEASE_RETRY_MS = 100;
/** the lease of one repository's publications: one writer per repository among the replicas sharing the store */
export const publisherLease = (repositoryId: string) => `publisher-${repositoryId}`;
/** how often a moved checkpoint is saved (and once more at stop) */
const CHECKPOINT_SAVE_MS = 1_000;

/**
 * Decides which repositories to build, when: it follows the module's log from its
 * checkpoint and marks a repository dirty for each change to its package set, its
 * advisories, its signing keys, its creation or its restoration; per repository a short debounce, at most one build in flight,
 * then one more if anything changed meanwhile. The checkpoint is the log position before
 * the oldest change not yet published, so a restart resumes with the repositories that
 * changed while the module was down (or while their build was in flight) and no others:
 * start-up work follows what changed, not how much is stored.
 *
 * Replicas sharing the module's store each follow the whole log and share the builds by a
 * lease per repository (taken before a build, renewed during it, given back after): a
 * replica builds what it can lease, up to `maxBuilds` at once, and asks again later for a
 * repository another replica is building, since that build may have started before the
 * change this replica saw. Its own build then finds the inputs published and makes nothing,
 * so every change ends published by someone, and a replica's checkpoint (the row they
 * share) only ever claims what is published. The generation appends are fenced by the
 * lease: a replica that lost it (stalled past its expiry) writes nothing more.
 */
export class BuildScheduler {
  private readonly dirty = new Map<string, BuildWork>();
  private readonly building = new Map<string, { work: BuildWork; done: Promise<void> }>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** due to build, waiting for one of this replica's `maxBuilds` slots */
  private readonly waitingForSlot = new Set<string>();
  private readonly seenWaiters = new Set<{ position: number; resolve: () => void }>();
  private idleWaiters: (() => void)[] = [];
  private subscription?: Subscription;
  private saver?: NodeJS.Timeout;
  private seen = 0;
  private saved = 0;
  private stopped = false;

  constructor(private readonly options: BuildSchedulerOptions) {}

  async start(): Promise<void> {
    const { es } = this.options;
    this.saved = this.seen = await es.readModels.getCheckpoint(BUILD_CHECKPOINT);
    this.subscription = es.events.subscribe(this.seen, async (event) => this.follow(event));
    this.saver = setInterval(() => void this.saveCheckpoint().catch((error: unknown) => this.options.logger.warn({ err: error }, 'saving the build checkpoint failed')), CHECKPOINT_SAVE_MS);
    this.saver.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.saver);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.waitingForSlot.clear();
    await this.subscription?.stop();
    await Promise.allSettled([...this.building.values()].map((entry) => entry.done));
    await this.saveCheckpoint();
  }

  /** whether a change to the repository is waiting for, or in, a build */
  pending(repositoryId: string): boolean {
    return this.dirty.has(repositoryId) || this.building.has(repositoryId);
  }

  /** resolves once the scheduler has looked at every event up to `position` */
  seenUpTo(position: number): Promise<void> {
    if (this.seen >= position) return Promise.resolve();
    return new Promise((resolve) => this.seenWaiters.add({ position, resolve }));
  }

  /** resolves once nothing is waiting for or in a build (tests and benchmarks wait on it) */
  idle(): Promise<void> {
    if (this.dirty.size === 0 && this.building.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** resolves once the repository's build in flight, if any, has ended */
  async settled(repositoryId: string): Promise<void> {
    await this.building.get(repositoryId)?.done.catch(() => undefined);
  }

  private follow(recorded: RecordedEvent): void {
    const event = followedEvent(recorded);
    switch (event?.type) {
      case 'PackageUploaded':
      case 'PackageDeleted':
        this.mark(event.data.repositoryId, recorded.position, { upload: event.data.uploadDistribution });
        break;
      // a key roll began or its overlap ended: every index is signed again by the keys that sign now
      case 'SigningKeysChanged':
        this.mark(event.data.repositoryId, recorded.position, { force: true });
        break;
      case 'RepositoryCreated':
        this.mark(event.data.repositoryId, recorded.position, {});
        break;
      // the inputs digest of each distribution tells which ones the advisory changes
      case 'AdvisoryCreated':
      case 'AdvisoryDeleted':
        this.mark(event.type === 'AdvisoryCreated' ? event.data.advisory!.repositoryId : event.data.repositoryId, recorded.position, {});
        break;
      // a restoration serves the indices published before the deletion; a key changed meanwhile (its
      // SigningKeysChanged found the repository deleted and built nothing) signs them anew
      case 'RepositoryRestored':
        this.mark(event.data.repositoryId, recorded.position, { force: true });
        break;
      // not built while deleted; its published indices stay, served again if it is restored
      case 'RepositoryDeleted':
        this.drop(event.data.repositoryId);
        break;
    }
    const purged = purgedRepositoryId(event);
    if (purged) {
      this.drop(purged);
      this.options.forget(purged);
    }
    this.seen = recorded.position;
    for (const waiter of this.seenWaiters) {
      if (waiter.position > this.seen) continue;
      this.seenWaiters.delete(waiter);
      waiter.resolve();
    }
    this.notifyIdle();
  }

  private drop(repositoryId: string): void {
    this.dirty.delete(repositoryId);
    this.waitingForSlot.delete(repositoryId);
    clearTimeout(this.timers.get(repositoryId));
    this.timers.delete(repositoryId);
  }

  /** no `upload`: every distribution of the repository */
  private mark(repositoryId: string, position: number, { upload, force = false }: { upload?: Distribution; force?: boolean }): void {
    const work = this.dirty.get(repositoryId) ?? { all: false, uploads: new Map<string, Distribution>(), force: false, since: position, upTo: position };
    if (upload === undefined) work.all = true;
    else work.uploads.set(formatDistribution(upload), upload);
    work.force ||= force;
    work.upTo = position;
    this.dirty.set(repositoryId, work);
    this.schedule(repositoryId, this.options.debounceMs ?? 5);
  }

  private schedule(repositoryId: string, delayMs: number): void {
    if (this.stopped || this.timers.has(repositoryId) || this.building.has(repositoryId) || this.waitingForSlot.has(repositoryId)) return;
    this.timers.set(
      repositoryId,
      setTimeout(() => {
        this.timers.delete(repositoryId);
        this.startBuild(repositoryId);
      }, delayMs),
    );
  }

  private startBuild(repositoryId: string): void {
    if (this.stopped) return;
    if (this.building.size >= this.options.maxBuilds) return void this.waitingForSlot.add(repositoryId);
    const work = this.dirty.get(repositoryId);
    if (!work) return;
    this.dirty.delete(repositoryId);
    const done = this.run(repositoryId, work).then((retryInMs) => {
      this.building.delete(repositoryId);
      if (this.dirty.has(repositoryId)) this.schedule(repositoryId, retryInMs ?? this.options.debounceMs ?? 5);
      this.fillSlots();
      this.notifyIdle();
    });
    this.building.set(repositoryId, { work, done });
  }

  private fillSlots(): void {
    for (const repositoryId of this.waitingForSlot) {
      if (this.stopped || this.building.size >= this.options.maxBuilds) return;
      this.waitingForSlot.delete(repositoryId);
      this.startBuild(repositoryId);
    }
  }

  /** builds under the repository's lease; resolves with how soon to try again when the work went back to the dirty set */
  private async run(repositoryId: string, work: BuildWork): Promise<number | undefined> {
    const { logger } = this.options;
    const { leases } = this.options.es.events;
    let lease: Lease | undefined;
    try {
      lease = await leases.acquire(publisherLease(repositoryId), this.options.holder, this.options.leaseMs);
    } catch (error) {
      logger.error({ err: error, repositoryId }, 'taking the publishing lease failed; retrying');
      this.requeue(repositoryId, work);
      return RETRY_MS;
    }
    // another replica is building it: ask again soon, this change may be newer than its build
    if (!lease) {
      this.requeue(repositoryId, work);
      return LEASE_RETRY_MS;
    }
    let held = lease;
    let building = true;
    const renewal = setInterval(() => {
      leases.renew(held, this.options.leaseMs).then(
        (renewed) => (held = renewed),
        (error: unknown) => building && logger.warn({ err: error, repositoryId }, 'renewing the publishing lease failed'),
      );
    }, this.options.leaseMs / 3);
    try {
      await this.options.build(repositoryId, work, lease);
      return undefined;
    } catch (error) {
      if (error instanceof LeaseLostError) logger.warn({ repositoryId, epoch: error.epoch, now: error.current }, 'another replica took the repository over mid-build; its build goes on, ours asks again');
      else logger.error({ err: error, repositoryId }, 'publishing failed; retrying');
      this.requeue(repositoryId, work);
      return error instanceof LeaseLostError ? LEASE_RETRY_MS : RETRY_MS;
    } finally {
      building = false;
      clearInterval(renewal);
      await leases.release(held).catch((error: unknown) => logger.warn({ err: error, repositoryId }, 'giving the publishing lease back failed; it expires'));
    }
  }

  /** the work goes back to the dirty set, merged with what changed meanwhile */
  private requeue(repositoryId: string, work: BuildWork): void {
    const again = this.dirty.get(repositoryId);
    this.dirty.set(repositoryId, {
      all: work.all || Boolean(again?.all),
      uploads: new Map([...work.uploads, ...(again?.uploads ?? [])]),
      force: work.force || Boolean(again?.force),
      since: Math.min(work.since, again?.since ?? Infinity),
      upTo: Math.max(work.upTo, again?.upTo ?? 0),
    });
  }

  /** the position before the oldest change not yet published, or the last event seen */
  private checkpoint(): number {
    let checkpoint = this.seen;
    for (const work of [...this.dirty.values(), ...[...this.building.values()].map((entry) => entry.work)]) checkpoint = Math.min(checkpoint, work.since - 1);
    return checkpoint;
  }

  private async saveCheckpoint(): Promise<void> {
    const checkpoint = this.checkpoint();
    if (checkpoint <= this.saved) return;
    await this.options.es.readModels.setCheckpoint(BUILD_CHECKPOINT, checkpoint);
    this.saved = checkpoint;
  }

  private notifyIdle(): void {
    if (this.dirty.size > 0 || this.building.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
