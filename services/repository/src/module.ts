import { Histogram } from 'prom-client';
import { busModule, defineModule, grpcClientsModule, grpcServerModule, httpServerModule, metricsModule, openModuleStores, startEventSourcing } from '@packyard/platform';
import { blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { AdvisoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/advisories';
import { PublishingServiceDefinition } from '@packyard/proto/packyard/repository/v1/publishing';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import { advisoriesProjection } from './advisories/advisories.projection';
import { advisoryHandlers } from './grpc/advisories.handlers';
import { repositoryHandlers } from './grpc/repository.handlers';
import { publishablePackagesProjection } from './packages/publishable-packages.projection';
import { repositoriesProjection } from './projections/repositories.projection';
import { publicationsProjection } from './publishing/publications.projection';
import { Publisher } from './publishing/publisher';
import { publishingHandlers } from './publishing/publishing.handlers';
import { artifactEventsReaction, signingEventsReaction } from './reactions/inbox.reactions';
import { workspaceDeletedReaction } from './reactions/workspace-deleted.reaction';

const projections = [repositoriesProjection, publishablePackagesProjection, publicationsProjection, advisoriesProjection];

export const repositoryModule = defineModule({
  name: 'repository',
  description: 'repositories, their package sets, index building and atomic publication',
  deps: [grpcServerModule, grpcClientsModule, httpServerModule, busModule, blobStoreModule, metricsModule],
  projections,
  init: async (ctx) => {
    const stores = await openModuleStores(ctx.config, 'repository');
    const es = await startEventSourcing({
      module: 'repository',
      stores,
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections,
      reactions: [workspaceDeletedReaction(stores.events), artifactEventsReaction(stores.events), signingEventsReaction(stores.events)],
      fail: ctx.fail,
    });
    ctx.use(httpServerModule).addReadinessCheck('repository', es.ready);
    const clients = ctx.use(grpcClientsModule);
    ctx.use(grpcServerModule).server.add(RepositoryServiceDefinition, repositoryHandlers(es, clients.client(WorkspaceServiceDefinition, 'workspace')));
    ctx.use(grpcServerModule).server.add(AdvisoryServiceDefinition, advisoryHandlers(es));
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
      logger: ctx.logger,
      onPublished: (kind, seconds) => publishSeconds.observe({ kind }, seconds),
    });
    ctx.use(grpcServerModule).server.add(PublishingServiceDefinition, publishingHandlers(es, publisher));
    return {
      value: undefined,
      // publishing signs through the signing module, reachable once every module has started
      start: () => publisher.start(),
      // drained before any module stops: a build in flight still reaches signing
      drain: () => publisher.stop(),
      stop: () => es.stop(),
    };
  },
});
