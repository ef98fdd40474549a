import {
  busModule,
  DeadlineSweeper,
  defineModule,
  defineSettings,
  DELETION_GRACE_SETTING,
  GiB,
  grpcServerModule,
  handleCommand,
  httpServerModule,
  integer,
  openModuleStores,
  PURGE_CHECK_INTERVAL_SETTING,
  serviceCaller,
  startEventSourcing,
} from '@packyard/platform';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import { workspaceHandlers } from './grpc/workspace.handlers';
import { auditLogProjection } from './projections/audit-log.projection';
import { DELETED_WORKSPACES, workspacesProjection, type DeletedWorkspaceDocument } from './projections/workspaces.projection';
import { inboxReactions } from './reactions/inbox.reaction';
import { userDeletedReaction } from './reactions/user-deleted.reaction';
import { workspaceDecider } from './workspaces/workspace.decider';
import { workspaceStream } from './workspaces/workspace.events';

const projections = [workspacesProjection, auditLogProjection];

export const WORKSPACE_SETTINGS = defineSettings({
  storageLimitBytes: integer('PLAN_STORAGE_LIMIT_BYTES', 10 * GiB, 'storage limit of the default plan, shown in the usage summary'),
  egressLimitBytes: integer('PLAN_EGRESS_LIMIT_BYTES', 100 * GiB, 'monthly egress limit of the default plan'),
  deletionGraceSeconds: DELETION_GRACE_SETTING,
  purgeCheckIntervalSeconds: PURGE_CHECK_INTERVAL_SETTING,
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
    const settings = ctx.settings(WORKSPACE_SETTINGS);
    ctx.use(grpcServerModule).server.add(WorkspaceServiceDefinition, workspaceHandlers(es, settings));
    // WorkspacePurged → repository purges the workspace's repositories, and they their packages, tokens and keys
    const purges = new DeadlineSweeper<DeletedWorkspaceDocument>({
      pending: () => stores.readModels.collection<DeletedWorkspaceDocument>(DELETED_WORKSPACES).find({}),
      deadlineOf: (workspace) => workspace.purgeAt,
      act: async (workspace) => {
        const result = await handleCommand(
          stores.events,
          workspaceStream(workspace.slug),
          workspaceDecider,
          { type: 'PurgeWorkspace', workspaceId: workspace.id, now: new Date().toISOString() },
          { isIntegration: () => true, metadata: { caller: serviceCaller('workspace') } },
        );
        await es.caughtUp(result.lastPosition);
        ctx.logger.info({ workspaceId: workspace.id, slug: workspace.slug }, 'deleted workspace purged after its grace period');
      },
      intervalMs: settings.purgeCheckIntervalSeconds * 1000,
      logger: ctx.logger,
      what: 'purging a deleted workspace',
    });
    return { value: undefined, start: async () => purges.start(), drain: () => purges.stop(), stop: () => es.stop() };
  },
});
