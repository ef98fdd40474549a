import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { createEventBus, handleCommand, loadConfig, openModuleStores, recordInbox, serviceCaller, startEventSourcing, type EventSourcing, type PackyardClient } from '@packyard/platform';
import { FsBlobStore } from '@packyard/platform/blobs/index';
import { createSecretBox } from '@packyard/platform/crypto/index';
import type { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { signingHandlers } from '@packyard/signing/grpc/signing.handlers';
import { generateRepositoryKey, type GeneratedRepositoryKey } from '@packyard/signing/domain/repository-key';
import { KeyRing } from '@packyard/signing/keys/key-ring';
import { signingKeyDecider } from '@packyard/signing/keys/signing-key.decider';
import { signingKeyStream } from '@packyard/signing/keys/signing-key.events';
import { PUBLISHABLE_PACKAGES, publishablePackagesProjection } from '../../packages/publishable-packages.projection';
import type { PublishablePackage } from '../../packages/publishable-package';
import type { PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';
import type { RepositoryCreated } from '@packyard/proto/packyard/repository/v1/events';
import { advisoriesProjection } from '../../advisories/advisories.projection';
import { repositoriesProjection } from '../../projections/repositories.projection';
import { repositoriesStream } from '../../repositories/repository.events';
import { publicationsProjection } from '../publications.projection';
import { PackageSets } from '../package-sets';
import { Publisher, type PublisherOptions } from '../publisher';

export interface PublishingRig {
  es: EventSourcing;
  publisher: Publisher;
  blobs: FsBlobStore;
  /** the signing module's handlers, in-process (another rig on the same directory can sign with them) */
  signing: PackyardClient<typeof SigningServiceDefinition>;
  /** how many times the signing module was asked to sign */
  signatures(): number;
  /** the most repositories that had a signing request in flight at the same time */
  mostRepositoriesSigningAtOnce(): number;
  /**
   * registers a copy of one RSA-4096 key (generated once per process) as the repository's
   * signing key, sealed for it as the key ring seals its own: for seeding many repositories
   * without one 3–7 s generation each. Signatures cost the same; the key ring unseals and
   * parses the shared key once instead of once per repository.
   */
  registerSharedKey(repositoryId: string): Promise<void>;
  stop(): Promise<void>;
}

const RIG_WORKSPACE = 'rig-workspace';

/** master key of the rig's signing keys: the same for every start on one data directory */
const MASTER_KEY = randomBytes(32);

let sharedKey: Promise<GeneratedRepositoryKey> | undefined;

/**
 * The repository module's publishing on its real stores (SQLite event store and read
 * models, embedded bus, filesystem blobs) in `dataDir`, with the signing module's handlers
 * and key ring (RSA-4096, kept in `dataDir` too) called in-process instead of over
 * loopback gRPC. Start it again on the same directory to see what a restart does.
 */
export async function startPublishingRig(dataDir: string, options: Partial<PublisherOptions> = {}): Promise<PublishingRig> {
  const config = loadConfig({ DATA_DIR: dataDir });
  const logger = pino({ level: 'warn' });
  const bus = await createEventBus({ kind: 'embedded', dataDir });
  const stores = await openModuleStores(config, 'repository');
  const signingStores = await openModuleStores(config, 'signing');
  const box = createSecretBox(MASTER_KEY);
  const lifetimeSeconds = 730 * 24 * 3600;
  const keys = new KeyRing(signingStores.events, box, { lifetimeSeconds });
  // no repository module here: only Sign and GetPublicKey are called, which never ask it
  const handlers = signingHandlers(keys, {} as never, { defaultOverlapSeconds: 0, onRollFailure: () => undefined });
  const context = { caller: serviceCaller('repository') } as never;
  let signed = 0;
  const signingNow = new Map<string, number>();
  let mostSigningAtOnce = 0;
  const signing = {
    sign: async (request: { repositoryId: string }) => {
      signed += 1;
      signingNow.set(request.repositoryId, (signingNow.get(request.repositoryId) ?? 0) + 1);
      mostSigningAtOnce = Math.max(mostSigningAtOnce, signingNow.size);
      try {
        return await handlers.sign(request as never, context);
      } finally {
        const left = signingNow.get(request.repositoryId)! - 1;
        if (left) signingNow.set(request.repositoryId, left);
        else signingNow.delete(request.repositoryId);
      }
    },
    getPublicKey: (request: never) => handlers.getPublicKey(request, context),
  } as unknown as PackyardClient<typeof SigningServiceDefinition>;
  const packageSets = new PackageSets(stores.readModels);
  const es = await startEventSourcing({
    module: 'repository',
    stores,
    bus,
    logger,
    projections: [repositoriesProjection, publishablePackagesProjection((change) => packageSets.apply(change)), publicationsProjection, advisoriesProjection],
    fail: (error) => logger.fatal({ err: error }, 'event processing failed'),
  });
  const blobs = new FsBlobStore(join(dataDir, 'blobs'));
  const publisher = new Publisher({ es, blobs, signing, logger, packageSets, holder: `rig/${randomUUID()}`, leaseMs: 15_000, maxBuilds: 4, ...options });
  return {
    es,
    publisher,
    blobs,
    signing,
    signatures: () => signed,
    mostRepositoriesSigningAtOnce: () => mostSigningAtOnce,
    async registerSharedKey(repositoryId) {
      const key = await (sharedKey ??= generateRepositoryKey({ name: 'Packyard rig', email: 'rig@packyard.invalid' }));
      const created = new Date();
      const stored = {
        fingerprint: key.fingerprint,
        publicKeyArmored: key.publicKeyArmored,
        sealedPrivateKey: box.seal(key.privateKeyArmored, repositoryId),
        createdAt: created.toISOString(),
        expiresAt: new Date(created.getTime() + lifetimeSeconds * 1000).toISOString(),
      };
      await handleCommand(signingStores.events, signingKeyStream(repositoryId), signingKeyDecider, { type: 'RegisterKey', repositoryId, key: stored, now: stored.createdAt });
    },
    async stop() {
      await publisher.stop();
      await es.stop();
      await signingStores.events.close();
      await signingStores.readModels.close();
      await bus.close();
    },
  };
}

/**
 * A bulk import: the packages written straight into the read model the publisher reads
 * them from, as the projection would hold them (seeding thousands of packages through
 * uploads takes minutes on two cores), then the repository's creation recorded, which
 * the publisher builds.
 */
export async function seedRepository(es: EventSourcing, repository: { id: string; kind: 'DEB' | 'RPM'; name: string }, packages: PublishablePackage[]): Promise<void> {
  const collection = es.readModels.collection<PublishablePackage>(PUBLISHABLE_PACKAGES);
  for (const pkg of packages) await collection.upsert(pkg);
  const created: RepositoryCreated = {
    repositoryId: repository.id, workspaceId: RIG_WORKSPACE, ownerId: 'rig-owner', name: repository.name, kind: repository.kind, codename: repository.kind === 'DEB' ? 'stable' : '',
    component: repository.kind === 'DEB' ? 'main' : '', createdAt: new Date().toISOString(), workspaceSlug: 'rig',
  };
  await es.events.append(repositoriesStream(RIG_WORKSPACE), 'ANY', [{ id: randomUUID(), type: 'RepositoryCreated', data: created, integration: true }]);
}

/** one of the repository module's own events (a repository's deletion, an advisory…) recorded as its deciders would */
export async function recordOwn(es: EventSourcing, stream: string, type: string, data: object): Promise<void> {
  await es.events.append(stream, 'ANY', [{ id: randomUUID(), type, data, integration: true }]);
}

/** the repositories stream of the rig's workspace */
export const RIG_REPOSITORIES_STREAM = repositoriesStream(RIG_WORKSPACE);

/** a `.deb` as artifact would have recorded it, without the file: enough to index it */
export function syntheticDeb(repositoryId: string, index: number, distribution = 'ubuntu/noble'): PublishablePackage {
  const name = `rig-package-${index}`;
  const sha256 = randomBytes(32).toString('hex');
  const file = { size: 1000 + index, md5: randomBytes(16).toString('hex'), sha1: randomBytes(20).toString('hex'), sha256, sha512: randomBytes(64).toString('hex') };
  const control = [
    { name: 'Package', value: name },
    { name: 'Version', value: '1.0-1' },
    { name: 'Architecture', value: 'amd64' },
    { name: 'Maintainer', value: 'Rig <rig@packyard.invalid>' },
    { name: 'Description', value: `package ${index} of the publishing rig` },
  ];
  return {
    id: `${repositoryId}-p${index}`, repositoryId, kind: 'DEB', distribution, name, version: '1.0-1', architecture: 'amd64', filename: `${name}_1.0-1_amd64.deb`,
    sizeBytes: file.size, sha256, blobKey: `packages/${repositoryId}/sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`, uploadedAt: new Date().toISOString(),
    indexEntryJson: JSON.stringify({ control, file }),
    sourceFiles: [],
  };
}

/** the PackageUploaded artifact would have recorded for `pkg`, as the inbox reaction records it */
export async function recordUploaded(es: EventSourcing, pkg: PublishablePackage): Promise<void> {
  const { id, ...rest } = pkg;
  const data: PackageUploaded = { ...rest, packageId: id, workspaceId: RIG_WORKSPACE, ownerId: 'rig-owner' };
  await recordInbox(es.events, 'artifact', { id: randomUUID(), type: 'PackageUploaded', key: `package-${id}`, data });
}
