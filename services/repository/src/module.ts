import { hostname } from 'node:os';
import { Histogram } from 'prom-client';
import {
  busModule,
  DeadlineSweeper,
  defineModule,
  defineSettings,
  DELETION_GRACE_SETTING,
  grpcClientsModule,
  grpcServerModule,
  handleCommand,
  httpServerModule,
  integer,
  metricsModule,
  openModuleStores,
  PURGE_CHECK_INTERVAL_SETTING,
  serviceCaller,
  startEventSourcing,
  text,
} from '@packyard/platform';
import { blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { DEFAULT_PLAIN_MAX_BYTES } from '@packyard/formats';
import { AdvisoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/advisories';
import { PublishingServiceDefinition } from '@packyard/proto/packyard/repository/v1/publishing';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import { advisoriesProjection } from './advisories/advisories.projection';
import { advisoryHandlers } from './grpc/advisories.handlers';
import { repositoryHandlers } from './grpc/repository.handlers';
import { publishablePackagesProjection } from './packages/publishable-packages.projection';
import { DELETED_REPOSITORIES, repositoriesProjection, type DeletedRepositoryDocument } from './projections/repositories.projection';
import { publicationsProjection } from './publishing/publications.projection';
import { PackageSets } from './publishing/package-sets';
import { Publisher } from './publishing/publisher';
import { publishingHandlers } from './publishing/publishing.handlers';
import { artifactEventsReaction, signingEventsReaction } from './reactions/inbox.reactions';
import { workspaceEventsReaction } from './reactions/workspace-events.reaction';
import { repositoriesDecider } from './repositories/repositories.decider';
import { isRepositoryIntegrationEvent, repositoriesStream } from './repositories/repository.events';

/** what `packyard rebuild-projections --target=repository` rebuilds */
const projections = [repositoriesProjection, publishablePackagesProjection(), publicationsProjection, advisoriesProjection];

export const REPOSITORY_SETTINGS = defineSettings({
  deletionGraceSeconds: DELETION_GRACE_SETTING,
  purgeCheckIntervalSeconds: PURGE_CHECK_INTERVAL_SETTING,
  replicaId: text('REPOSITORY_REPLICA_ID', undefined, "names this repository replica in its publishing leases and in the publication events it writes (default: the host name, a pod's name in Kubernetes)"),
  publishLeaseSeconds: integer(
    'PUBLISH_LEASE_S',
    15,
    "how long a repository replica's hold on one repository's publishing lasts unless renewed (a third of it while building): the repositories a replica that died was building wait this long for another",
    1,
  ),
  publishRepositoriesAtOnce: integer('PUBLISH_REPOSITORIES_AT_ONCE', 4, 'repositories one repository replica builds at once; more wait for a free slot, or another replica builds them', 1),
  plainIndexMaxBytes: integer(
    'PUBLISH_PLAIN_INDEX_MAX_BYTES',
    DEFAULT_PLAIN_MAX_BYTES,
    "an APT index (Packages, Sources) is also stored uncompressed while at most this size; a bigger one is served as `.gz` only and listed in Release, as Debian's archive does (apt reads the compressed one)",
  ),
});

export const repositoryModule = defineModule({
  name: 'repository',
  description: 'repositories, their package sets, index building and atomic publication',
  deps: [grpcServerModule, grpcClientsModule, httpServerModule, busModule, blobStoreModule, metricsModule],
  settings: REPOSITORY_SETTINGS,
  projections,
  init: async (ctx) => {
    const stores = await openModuleStores(ctx.config, 'repository');
    const packageSets = new PackageSets(stores.readModels);
    const es = await startEventSourcing({
      module: 'repository',
      stores,
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections: [repositoriesProjection, publishablePackagesProjection((change) => packageSets.apply(change)), publicationsProjection, advisoriesProjection],
      reactions: [workspaceEventsReaction(stores.events), artifactEventsReaction(stores.events), signingEventsReaction(stores.events)],
      fail: ctx.fail,
    });
    ctx.use(httpServerModule).addReadinessCheck('repository', es.ready);
    const clients = ctx.use(grpcClientsModule);
    const settings = ctx.settings(REPOSITORY_SETTINGS);
    ctx.use(grpcServerModule).server.add(RepositoryServiceDefinition, repositoryHandlers(es, clients.client(WorkspaceServiceDefinition, 'workspace'), settings));
    ctx.use(grpcServerModule).server.add(AdvisoryServiceDefinition, advisoryHandlers(es));
    // RepositoryPurged → artifact deletes its packages and frees their bytes, token revokes its
    // tokens, signing destroys its keys, the publisher drops its indices, delivery forgets it
    const purges = new DeadlineSweeper<DeletedRepositoryDocument>({
      pending: () => stores.readModels.collection<DeletedRepositoryDocument>(DELETED_REPOSITORIES).find({ withWorkspace: false }),
      deadlineOf: (repository) => repository.purgeAt,
      act: async (repository) => {
        const result = await handleCommand(
          stores.events,
          repositoriesStream(repository.workspaceId),
          repositoriesDecider,
          { type: 'PurgeRepository', workspaceId: repository.workspaceId, repositoryId: repository.id, now: new Date().toISOString() },
          { isIntegration: isRepositoryIntegrationEvent, metadata: { caller: serviceCaller('repository') } },
        );
        await es.caughtUp(result.lastPosition);
        ctx.logger.info({ repositoryId: repository.id, name: repository.name }, 'deleted repository purged after its grace period');
      },
      intervalMs: settings.purgeCheckIntervalSeconds * 1000,
      logger: ctx.logger,
      what: 'purging a deleted repository',
    });
    const publishSeconds = new Histogram({
      name: 'packyard_repository_publish_seconds',
      help: 'Time to build, sign and publish the changed distributions of a repository, by kind.',
      labelNames: ['kind'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [ctx.use(metricsModule)],
    });
    const publisher = new Publisher({
      es,
      blobs: ctx.use(blobStoreModule),
      signing: clients.client(SigningServiceDefinition, 'signing'),
      build: { plainIndexMaxBytes: settings.plainIndexMaxBytes },
      logger: ctx.logger,
      packageSets,
      // the process in the name too: a restarted replica does not take its former self's leases before they expire
      holder: `${settings.replicaId ?? hostname()}/${process.pid}`,
      leaseMs: settings.publishLeaseSeconds * 1000,
      maxBuilds: settings.publishRepositoriesAtOnce,
      onPublished: (kind, seconds) => publishSeconds.observe({ kind }, seconds),
    });
    ctx.use(grpcServerModule).server.add(PublishingServiceDefinition, publishingHandlers(es, publisher));
    return {
      value: undefined,
      // publishing signs through the signing module, reachable once every module has started
      start: async () => {
        await publisher.start();
        purges.start();
      },
      // drained before any module stops: a build in flight still reaches signing
      drain: async () => {
        await purges.stop();
        await publisher.stop();
      },
      stop: () => es.stop(),
    };
  },
});
