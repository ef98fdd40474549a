import { busModule, defineModule, grpcClientsModule, grpcServerModule, httpServerModule, openModuleStores, startEventSourcing } from '@packyard/platform';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import { repositoryHandlers } from './grpc/repository.handlers';
import { repositoriesProjection } from './projections/repositories.projection';
import { artifactEventsReaction } from './reactions/artifact-events.reaction';
import { workspaceDeletedReaction } from './reactions/workspace-deleted.reaction';

const projections = [repositoriesProjection];

export const repositoryModule = defineModule({
  name: 'repository',
  description: 'repositories, their package sets, index building and atomic publication',
  deps: [grpcServerModule, grpcClientsModule, httpServerModule, busModule],
  projections,
  init: async (ctx) => {
    const stores = await openModuleStores(ctx.config, 'repository');
    const es = await startEventSourcing({
      module: 'repository',
      stores,
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections,
      reactions: [workspaceDeletedReaction(stores.events), artifactEventsReaction(stores.events)],
    });
    const clients = ctx.use(grpcClientsModule);
    ctx.use(grpcServerModule).server.add(RepositoryServiceDefinition, repositoryHandlers(es, clients.client(WorkspaceServiceDefinition, 'workspace')));
    return { value: undefined, stop: () => es.stop() };
  },
});
