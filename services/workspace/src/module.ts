import { busModule, defineModule, defineSettings, GiB, grpcServerModule, httpServerModule, integer, openModuleStores, startEventSourcing } from '@packyard/platform';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import { workspaceHandlers } from './grpc/workspace.handlers';
import { workspacesProjection } from './projections/workspaces.projection';
import { inboxReactions } from './reactions/inbox.reaction';
import { userDeletedReaction } from './reactions/user-deleted.reaction';

const projections = [workspacesProjection];

export const WORKSPACE_SETTINGS = defineSettings({
  storageLimitBytes: integer('PLAN_STORAGE_LIMIT_BYTES', 10 * GiB, 'storage limit of the default plan, shown in the usage summary'),
  egressLimitBytes: integer('PLAN_EGRESS_LIMIT_BYTES', 100 * GiB, 'monthly egress limit of the default plan'),
});

export const workspaceModule = defineModule({
  name: 'workspace',
  description: 'workspaces, their usage and the usage summary',
  deps: [grpcServerModule, httpServerModule, busModule],
  settings: WORKSPACE_SETTINGS,
  projections,
  init: async (ctx) => {
    const stores = await openModuleStores(ctx.config, 'workspace');
    const es = await startEventSourcing({
      module: 'workspace',
      stores,
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections,
      reactions: [...inboxReactions(stores.events), userDeletedReaction(stores.events, stores.readModels)],
      fail: ctx.fail,
    });
    ctx.use(httpServerModule).addReadinessCheck('workspace', es.ready);
    ctx.use(grpcServerModule).server.add(
      WorkspaceServiceDefinition,
      workspaceHandlers(es, ctx.settings(WORKSPACE_SETTINGS)),
    );
    return { value: undefined, stop: () => es.stop() };
  },
});
