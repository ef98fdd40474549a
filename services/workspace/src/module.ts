import { busModule, defineModule, grpcServerModule, httpServerModule, openModuleStores, startEventSourcing } from '@packyard/platform';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import { workspaceHandlers } from './grpc/workspace.handlers';
import { auditLogProjection } from './projections/audit-log.projection';
import { workspacesProjection } from './projections/workspaces.projection';
import { inboxReactions } from './reactions/inbox.reaction';

const projections = [workspacesProjection, auditLogProjection];

export const workspaceModule = defineModule({
  name: 'workspace',
  description: 'workspaces, their usage and the usage summary',
  deps: [grpcServerModule, httpServerModule, busModule],
  projections,
  init: async (ctx) => {
    const stores = await openModuleStores(ctx.config, 'workspace');
    const es = await startEventSourcing({ module: 'workspace', stores, bus: ctx.use(busModule), logger: ctx.logger, projections, reactions: inboxReactions(stores.events) });
    ctx.use(grpcServerModule).server.add(
      WorkspaceServiceDefinition,
      workspaceHandlers(es, { storageLimitBytes: ctx.config.storageLimitBytes, egressLimitBytes: ctx.config.egressLimitBytes }),
    );
    return { value: undefined, stop: () => es.stop() };
  },
});
