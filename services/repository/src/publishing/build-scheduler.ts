import type { Logger } from 'pino';
import type { EventSourcing, RecordedEvent, Subscription } from '@packyard/platform';
import { followedEvent, purgedRepositoryId } from './followed-events';

/** what changed in a repository since its last build */
export interface BuildWork {
  /** every distribution, not only `distributions` */
  all: boolean;
  distributions: Set<string>;
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
  /** builds the repository's changed distributions; a rejection retries the same work later */
  build: (repositoryId: string, work: BuildWork) => Promise<void>;
  /** a repository is purged: what was kept for it goes */
  forget: (repositoryId: string) => void;
  /** how long a burst of uploads to one repository may keep arriving before a build starts */
  debounceMs?: number;
}

/** the checkpoint's name in the module's read-model store */
export const BUILD_CHECKPOINT = 'publisher-builds';
const RETRY_MS = 1_000;
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
 */
export class BuildScheduler {
  private readonly dirty = new Map<string, BuildWork>();
  private readonly building = new Map<string, { work: BuildWork; done: Promise<void> }>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
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
        this.mark(event.data.repositoryId, recorded.position, { distribution: event.data.distribution });
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
    clearTimeout(this.timers.get(repositoryId));
    this.timers.delete(repositoryId);
  }

  /** no `distribution`: every distribution of the repository */
  private mark(repositoryId: string, position: number, { distribution, force = false }: { distribution?: string; force?: boolean }): void {
    const work = this.dirty.get(repositoryId) ?? { all: false, distributions: new Set<string>(), force: false, since: position, upTo: position };
    if (distribution === undefined) work.all = true;
    else work.distributions.add(distribution);
    work.force ||= force;
    work.upTo = position;
    this.dirty.set(repositoryId, work);
    this.schedule(repositoryId, this.options.debounceMs ?? 5);
  }

  private schedule(repositoryId: string, delayMs: number): void {
    if (this.stopped || this.timers.has(repositoryId) || this.building.has(repositoryId)) return;
    this.timers.set(
      repositoryId,
      setTimeout(() => {
        this.timers.delete(repositoryId);
        const work = this.dirty.get(repositoryId);
        if (!work) return;
        this.dirty.delete(repositoryId);
        const done = this.run(repositoryId, work).finally(() => {
          this.building.delete(repositoryId);
          if (this.dirty.has(repositoryId)) this.schedule(repositoryId, this.options.debounceMs ?? 5);
          this.notifyIdle();
        });
        this.building.set(repositoryId, { work, done });
      }, delayMs),
    );
  }

  private async run(repositoryId: string, work: BuildWork): Promise<void> {
    try {
      await this.options.build(repositoryId, work);
    } catch (error) {
      this.options.logger.error({ err: error, repositoryId }, 'publishing failed; retrying');
      const again = this.dirty.get(repositoryId);
      this.dirty.set(repositoryId, {
        all: work.all || Boolean(again?.all),
        distributions: new Set([...work.distributions, ...(again?.distributions ?? [])]),
        force: work.force || Boolean(again?.force),
        since: Math.min(work.since, again?.since ?? Infinity),
        upTo: Math.max(work.upTo, again?.upTo ?? 0),
      });
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
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
