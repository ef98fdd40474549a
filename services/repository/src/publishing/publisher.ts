import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { isVisibleIn, parseDistribution, type Distribution } from '@packyard/formats';
import { ConcurrencyError, isInboxEvent, loadAggregate, serviceCaller, type EventSourcing, type PackyardClient, type RecordedEvent, type Subscription } from '@packyard/platform';
import { contentAddressedKey, type BlobStore } from '@packyard/platform/blobs/index';
import type { PackageDeleted, PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';
import type { Advisory } from '@packyard/proto/packyard/repository/v1/advisories';
import type { IndexFile } from '@packyard/proto/packyard/repository/v1/events';
import type { RepositoryCreated, RepositoryDeleted, RepositoryPurged, RepositoryRestored } from '@packyard/proto/packyard/repository/v1/events';
import type { SigningKeysChanged } from '@packyard/proto/packyard/signing/v1/events';
import type { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { ADVISORIES, type AdvisoryDocument } from '../advisories/advisories.projection';
import type { AdvisoriesEvent } from '../advisories/advisory.events';
import { PUBLISHABLE_PACKAGES } from '../packages/publishable-packages.projection';
import { toPublishablePackage, type PublishablePackage } from '../packages/publishable-package';
import { DELETED_REPOSITORIES, REPOSITORIES, type RepositoryDocument } from '../projections/repositories.projection';
import { buildGeneration, IndexEntryCache, type BuiltGeneration } from './generation.builder';
import { contentTypeOf, publicationTargets, targetKey, targetsShowing, type PublishedRepository } from './publication-layout';
import { publicationDecider, type PublicationCommand, type PublicationState } from './publication.decider';
import { isPublicationIntegrationEvent, publicationStream } from './publication.events';

/** the repository module calling on its own behalf */
const REPOSITORY_CALLER = serviceCaller('repository');

export interface PublisherOptions {
  es: EventSourcing;
  blobs: BlobStore;
  signing: PackyardClient<typeof SigningServiceDefinition>;
  logger: Logger;
  /** how long a burst of uploads to one repository may keep arriving before a build starts */
  debounceMs?: number;
  /** distributions of one repository built at once */
  concurrency?: number;
  /** heard after every completed build (for the publish latency metric) */
  onPublished?: (kind: string, seconds: number) => void;
}

/** what changed in a repository since its last build */
interface Work {
  all: boolean;
  distributions: Set<string>;
}

const RETRY_MS = 1_000;
/** index files of a repository, content-addressed: a generation's files never change under a reader */
const indexBlobPrefix = (repositoryId: string) => `indices/${repositoryId}`;

/**
 * Follows the module's log and republishes the affected distributions of a repository
 * when its packages change, coalescing bursts: a short per-repository debounce, at most
 * one build in flight per repository, then one more if anything changed meanwhile. Every
 * distribution goes through IndexBuilt → IndexSigned → IndexPublished (see the decider).
 * The package sets are held in memory (loaded once at start, then kept from the log) with
 * each package's index text cached, so a build costs a concatenation, compression and
 * hashing, not a re-read of every package.
 */
export class Publisher {
  private readonly packages = new Map<string, Map<string, PublishablePackage>>();
  /** repository → advisory id → advisory (RPM repositories' updateinfo.xml) */
  private readonly advisories = new Map<string, Map<string, Advisory>>();
  /** the repositories, from RepositoryCreated itself: a build never waits for the module's projections */
  private readonly repositories = new Map<string, PublishedRepository>();
  /** deleted ones in their grace period: not built, their packages and published indices kept for a restoration */
  private readonly deletedRepositories = new Map<string, PublishedRepository>();
  private readonly dirty = new Map<string, Work>();
  private readonly building = new Map<string, Promise<void>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** the package ids every distribution of a repository had when its last build completed */
  private readonly published = new Map<string, Set<string>>();
  private readonly waiters = new Map<string, Set<{ packageId: string; resolve: (published: boolean) => void }>>();
  /** repository → distribution → the generation this publisher last made current */
  private readonly currentGenerations = new Map<string, Map<string, number>>();
  private readonly publicKeys = new Map<string, Promise<string>>();
  private readonly cache = new IndexEntryCache();
  /** publication aggregates as last written here: a stream grows by three events per build, so it is read once, not per phase */
  private readonly publications = new Map<string, { state: PublicationState; version: number }>();
  private subscription?: Subscription;
  private seenPosition = 0;
  private stopped = false;

  constructor(private readonly options: PublisherOptions) {}

  async start(): Promise<void> {
    const { es } = this.options;
    const from = await es.events.lastPosition();
    await es.caughtUp(from, 120_000);
    this.seenPosition = from;
    for (const pkg of await es.readModels.collection<PublishablePackage>(PUBLISHABLE_PACKAGES).find({})) this.packagesOf(pkg.repositoryId).set(pkg.id, pkg);
    for (const { advisory } of await es.readModels.collection<AdvisoryDocument>(ADVISORIES).find({})) this.advisoriesOf(advisory.repositoryId).set(advisory.id, advisory);
    // whatever happened while the module was down is published once now
    for (const doc of await es.readModels.collection<RepositoryDocument>(REPOSITORIES).find({})) {
      this.repositories.set(doc.id, toPublishedRepository(doc));
      this.mark(doc.id, undefined);
    }
    for (const doc of await es.readModels.collection<RepositoryDocument>(DELETED_REPOSITORIES).find({})) this.deletedRepositories.set(doc.id, toPublishedRepository(doc));
    this.subscription = es.events.subscribe(from, async (event) => this.follow(event));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    await this.subscription?.stop();
    await Promise.allSettled(this.building.values());
  }

  /** resolves true once a completed build of the repository included the package, false after `timeoutMs` */
  waitForPublication(repositoryId: string, packageId: string, timeoutMs: number): Promise<boolean> {
    if (this.published.get(repositoryId)?.has(packageId)) return Promise.resolve(true);
    return new Promise((resolve) => {
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
  }

  /** the current generation of every distribution of the repository published since this module started */
  generationsOf(repositoryId: string): { distribution: string; generation: number }[] {
    return [...(this.currentGenerations.get(repositoryId) ?? [])].map(([distribution, generation]) => ({ distribution, generation }));
  }

  private advisoriesOf(repositoryId: string): Map<string, Advisory> {
    return innerMap(this.advisories, repositoryId);
  }

  /** an advisory created or deleted: the distributions its packages apply to are published again */
  private followAdvisory(event: AdvisoriesEvent): void {
    const advisory =
      event.type === 'AdvisoryCreated' ? event.data.advisory! : this.advisories.get(event.data.repositoryId)?.get(event.data.advisoryId);
    if (!advisory) return;
    if (event.type === 'AdvisoryCreated') this.advisoriesOf(advisory.repositoryId).set(advisory.id, advisory);
    else this.advisoriesOf(advisory.repositoryId).delete(advisory.id);
    if (!this.repositories.has(advisory.repositoryId)) return;
    for (const distribution of new Set(advisory.packages.map((pkg) => pkg.distribution))) this.mark(advisory.repositoryId, distribution);
  }

  private packagesOf(repositoryId: string): Map<string, PublishablePackage> {
    return innerMap(this.packages, repositoryId);
  }

  private async follow(event: RecordedEvent): Promise<void> {
    this.seenPosition = event.position;
    if (isInboxEvent(event.stream, 'artifact')) {
      if (event.type === 'PackageUploaded') {
        const pkg = toPublishablePackage(event.data as PackageUploaded);
        this.packagesOf(pkg.repositoryId).set(pkg.id, pkg);
        this.mark(pkg.repositoryId, pkg.distribution);
      } else if (event.type === 'PackageDeleted') {
        const { repositoryId, packageId, distribution } = event.data as PackageDeleted;
        this.packagesOf(repositoryId).delete(packageId);
        this.cache.forget(packageId);
        this.mark(repositoryId, distribution);
      }
    } else if (isInboxEvent(event.stream, 'signing') && event.type === 'SigningKeysChanged') {
      // a key roll began or its overlap ended: every index is signed again by the keys that sign now
      const { repositoryId } = event.data as SigningKeysChanged;
      this.publicKeys.delete(repositoryId);
      if (this.repositories.has(repositoryId)) this.mark(repositoryId, undefined);
    } else if (event.type === 'AdvisoryCreated' || event.type === 'AdvisoryDeleted') {
      this.followAdvisory({ type: event.type, data: event.data } as AdvisoriesEvent);
    } else if (event.type === 'RepositoryCreated') {
      const data = event.data as RepositoryCreated;
      this.repositories.set(data.repositoryId, toPublishedRepository({ ...data, id: data.repositoryId }));
      this.mark(data.repositoryId, undefined);
    } else if (event.type === 'RepositoryDeleted') {
      const { repositoryId } = event.data as RepositoryDeleted;
      const repository = this.repositories.get(repositoryId);
      if (repository) this.deletedRepositories.set(repositoryId, repository);
      this.repositories.delete(repositoryId);
      this.dirty.delete(repositoryId);
      clearTimeout(this.timers.get(repositoryId));
      this.timers.delete(repositoryId);
    } else if (event.type === 'RepositoryRestored') {
      const { repositoryId } = event.data as RepositoryRestored;
      const repository = this.deletedRepositories.get(repositoryId);
      this.deletedRepositories.delete(repositoryId);
      if (!repository) return;
      this.repositories.set(repositoryId, repository);
      // its published indices are served again as they were; a key rolled meanwhile signs a new generation
      this.mark(repositoryId, undefined);
    } else if (event.type === 'RepositoryPurged') {
      const { repositoryId } = event.data as RepositoryPurged;
      this.deletedRepositories.delete(repositoryId);
      for (const id of this.packages.get(repositoryId)?.keys() ?? []) this.cache.forget(id);
      this.cache.forgetRepository(repositoryId);
      this.packages.delete(repositoryId);
      this.advisories.delete(repositoryId);
      this.repositories.delete(repositoryId);
      this.dirty.delete(repositoryId);
      this.published.delete(repositoryId);
      this.currentGenerations.delete(repositoryId);
      for (const stream of this.publications.keys()) if (stream.startsWith(publicationStream(repositoryId, ''))) this.publications.delete(stream);
      clearTimeout(this.timers.get(repositoryId));
      this.timers.delete(repositoryId);
      await this.building.get(repositoryId);
      // its index generations go with it (its package files are freed by artifact)
      for await (const key of this.options.blobs.list(`${indexBlobPrefix(repositoryId)}/`)) await this.options.blobs.delete(key);
    }
  }

  /** `distribution` undefined: every distribution of the repository */
  private mark(repositoryId: string, distribution: string | undefined): void {
    const work = this.dirty.get(repositoryId) ?? { all: false, distributions: new Set<string>() };
    if (distribution === undefined) work.all = true;
    else work.distributions.add(distribution);
    this.dirty.set(repositoryId, work);
    this.schedule(repositoryId, this.options.debounceMs ?? 5);
  }

  private schedule(repositoryId: string, delayMs: number): void {
    if (this.stopped || this.timers.has(repositoryId) || this.building.has(repositoryId)) return;
    this.timers.set(
      repositoryId,
      setTimeout(() => {
        this.timers.delete(repositoryId);
        const build = this.build(repositoryId).finally(() => {
          this.building.delete(repositoryId);
          if (this.dirty.has(repositoryId)) this.schedule(repositoryId, this.options.debounceMs ?? 5);
        });
        this.building.set(repositoryId, build);
      }, delayMs),
    );
  }

  private async build(repositoryId: string): Promise<void> {
    const work = this.dirty.get(repositoryId);
    if (!work) return;
    this.dirty.delete(repositoryId);
    const { logger } = this.options;
    try {
      const repository = this.repositories.get(repositoryId);
      if (!repository) return;
      const targets = work.all ? publicationTargets(repository) : unique([...work.distributions].flatMap((distribution) => targetsShowing(repository, distribution)));
      const packages = [...this.packagesOf(repositoryId).values()];
      const advisories = [...(this.advisories.get(repositoryId)?.values() ?? [])];
      const started = performance.now();
      const date = new Date();
      await forEachLimited(targets, this.options.concurrency ?? 4, (target) =>
        this.publish(repository, target, packages.filter((pkg) => isVisibleIn(parseDistribution(pkg.distribution), target)), advisories, date),
      );
      logger.debug({ repositoryId, distributions: targets.length, packages: packages.length, ms: Math.round(performance.now() - started) }, 'indices published');
      this.options.onPublished?.(repository.kind, (performance.now() - started) / 1000);
      const snapshot = new Set(packages.map((pkg) => pkg.id));
      this.published.set(repositoryId, snapshot);
      for (const waiter of this.waiters.get(repositoryId) ?? []) if (snapshot.has(waiter.packageId)) waiter.resolve(true);
    } catch (error) {
      logger.error({ err: error, repositoryId }, 'publishing failed; retrying');
      const again = this.dirty.get(repositoryId) ?? { all: false, distributions: new Set<string>() };
      this.dirty.set(repositoryId, { all: again.all || work.all, distributions: new Set([...again.distributions, ...work.distributions]) });
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  private async publish(repository: PublishedRepository, target: Distribution, packages: PublishablePackage[], advisories: Advisory[], date: Date): Promise<void> {
    const distribution = targetKey(target);
    const stream = publicationStream(repository.id, distribution);
    const built = await buildGeneration(repository, target, packages, this.cache, date, advisories);

    // phase 1: every metadata file is stored before anything points at it; the signing
    // module signs those very bytes meanwhile (its signatures are recorded only in phase 2)
    const [metadata, signatures] = await Promise.all([
      Promise.all(built.metadata.map((file) => this.store(repository.id, file.path, file.bytes, file.sha256))),
      this.sign(repository, built),
    ]);
    const generation = (await this.decide(stream, { type: 'RecordBuilt', repositoryId: repository.id, distribution, files: metadata, now: date.toISOString() })).lastGeneration;

    // phase 2: the signatures over exactly the stored bytes
    const signed = await Promise.all(signatures.map(({ path, bytes }) => this.store(repository.id, path, bytes)));
    await this.decide(stream, {
      type: 'RecordSigned', repositoryId: repository.id, distribution, generation, files: signed, keyFingerprint: signatures[0].fingerprint, now: new Date().toISOString(),
    });

    // phase 3: one event makes the generation current
    const byPath = new Map(metadata.map((file) => [file.path, file]));
    const aliases = built.aliases.map(({ path, of }) => ({ ...byPath.get(of.path)!, path }));
    const pool = built.pool.map(({ path, file }) => ({ path, ...file, contentType: contentTypeOf(path), package: true }));
    await this.decide(stream, {
      type: 'Publish',
      generation,
      publication: {
        repositoryId: repository.id,
        distribution,
        publishedAt: new Date().toISOString(),
        kind: repository.kind,
        workspaceId: repository.workspaceId,
        workspaceSlug: repository.workspaceSlug,
        repositoryName: repository.name,
        ownerId: repository.ownerId,
        distro: target.distro,
        version: target.version,
        files: [...metadata, ...signed, ...aliases, ...pool],
      },
    });
    const current = this.currentGenerations.get(repository.id) ?? new Map<string, number>();
    this.currentGenerations.set(repository.id, current.set(distribution, generation));
  }

  /**
   * handleCommand with the aggregate kept in memory between phases: decide on the cached
   * state and append with its version; another writer (a second replica) makes the append
   * fail, and the command is decided again on the stream as stored.
   */
  private async decide(stream: string, command: PublicationCommand): Promise<PublicationState> {
    const { events } = this.options.es;
    for (let attempt = 0; ; attempt++) {
      const current = this.publications.get(stream) ?? (await loadAggregate(events, stream, publicationDecider));
      const decided = publicationDecider.decide(command, current.state);
      try {
        const result = await events.append(
          stream,
          current.version === 0 ? 'NO_STREAM' : current.version,
          decided.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, integration: isPublicationIntegrationEvent(event), metadata: { causation: 'publisher' } })),
        );
        const state = decided.reduce(publicationDecider.evolve, current.state);
        this.publications.set(stream, { state, version: result.nextExpectedVersion });
        return state;
      } catch (error) {
        this.publications.delete(stream);
        if (!(error instanceof ConcurrencyError) || attempt >= 3) throw error;
      }
    }
  }

  /** `sha256` when the builder computed it already */
  private async store(repositoryId: string, path: string, bytes: Buffer, sha256 = createHash('sha256').update(bytes).digest('hex')): Promise<IndexFile> {
    const contentType = contentTypeOf(path);
    const known = contentAddressedKey(indexBlobPrefix(repositoryId), sha256);
    // most files of a generation (empty components and architectures, the key) are the
    // previous generation's bytes: a durable write (two fsyncs) saved per file
    if (await this.options.blobs.head(known)) return { path, blobKey: known, size: bytes.length, sha256, contentType, package: false };
    const info = await this.options.blobs.putContentAddressed(indexBlobPrefix(repositoryId), Readable.from([bytes]), { contentType });
    return { path, blobKey: info.key, size: info.size, sha256: info.sha256, contentType, package: false };
  }

  /**
   * InRelease + Release.gpg over the Release (DEB); repomd.xml.asc over each repomd.xml (the
   * binary and the source packages' repository) and the key beside it (RPM)
   */
  private async sign(repository: PublishedRepository, built: BuiltGeneration): Promise<{ path: string; bytes: Buffer; fingerprint: string }[]> {
    const modes = repository.kind === 'DEB' ? ['clearsign', 'detached'] : ['detached-armored'];
    const signed = await Promise.all(
      built.signables.map(async (signable) => {
        const result = await this.options.signing.sign({ repositoryId: repository.id, data: signable.bytes, modes }, { caller: REPOSITORY_CALLER });
        const fingerprint = result.keyFingerprint;
        if (repository.kind === 'DEB') {
          const dir = signable.path.slice(0, signable.path.lastIndexOf('/'));
          return [
            { path: `${dir}/InRelease`, bytes: Buffer.from(result.clearsigned), fingerprint },
            { path: `${dir}/Release.gpg`, bytes: Buffer.from(result.detached), fingerprint },
          ];
        }
        return [
          { path: `${signable.path}.asc`, bytes: Buffer.from(result.detachedArmored), fingerprint },
          { path: `${signable.path}.key`, bytes: Buffer.from(await this.publicKey(repository.id), 'utf8'), fingerprint },
        ];
      }),
    );
    return signed.flat();
  }

  private publicKey(repositoryId: string): Promise<string> {
    let key = this.publicKeys.get(repositoryId);
    if (!key) {
      key = this.options.signing.getPublicKey({ repositoryId }, { caller: REPOSITORY_CALLER }).then((answer) => answer.armored);
      this.publicKeys.set(repositoryId, key);
      key.catch(() => this.publicKeys.delete(repositoryId));
    }
    return key;
  }
}

const toPublishedRepository = (doc: Omit<PublishedRepository, 'kind'> & { kind: string }): PublishedRepository => ({
  id: doc.id,
  kind: doc.kind === 'RPM' ? 'RPM' : 'DEB',
  workspaceId: doc.workspaceId,
  workspaceSlug: doc.workspaceSlug,
  ownerId: doc.ownerId,
  name: doc.name,
  codename: doc.codename,
  component: doc.component,
});

/** the map kept under `key`, made empty on first use */
function innerMap<K, V>(outer: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let inner = outer.get(key);
  if (!inner) outer.set(key, (inner = new Map()));
  return inner;
}

const unique = (targets: Distribution[]) => [...new Map(targets.map((target) => [targetKey(target), target])).values()];

async function forEachLimited<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
