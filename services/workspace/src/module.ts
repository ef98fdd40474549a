import {
  boolean,
  busModule,
  defineModule,
  defineSettings,
  EVENT_PROCESSING_ATTEMPTS,
  GiB,
  grpcClientsModule,
  grpcServerModule,
  httpServerModule,
  integer,
  openModuleStores,
  startEventSourcing,
} from '@packyard/platform';
import { createSecretBox, loadOrCreateMasterKey } from '@packyard/platform/crypto/index';
import { WebhookServiceDefinition } from '@packyard/proto/packyard/workspace/v1/webhooks';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import { webhookHandlers } from './grpc/webhook.handlers';
import { workspaceHandlers } from './grpc/workspace.handlers';
import { auditLogProjection } from './projections/audit-log.projection';
import { webhooksProjection } from './projections/webhooks.projection';
import { workspacesProjection } from './projections/workspaces.projection';
import { inboxReactions } from './reactions/inbox.reaction';
import { userDeletedReaction } from './reactions/user-deleted.reaction';
import { startWebhookScheduler } from './webhooks/webhook-scheduler';
import { WebhookSender } from './webhooks/webhook-sender';

const projections = [workspacesProjection, auditLogProjection, webhooksProjection];

export const WORKSPACE_SETTINGS = defineSettings({
  storageLimitBytes: integer('PLAN_STORAGE_LIMIT_BYTES', 10 * GiB, 'storage limit of the default plan, shown in the usage summary'),
  egressLimitBytes: integer('PLAN_EGRESS_LIMIT_BYTES', 100 * GiB, 'monthly egress limit of the default plan'),
  webhookTimeoutS: integer('WEBHOOK_TIMEOUT_S', 10, 'how long a webhook receiver has to answer a delivery before the attempt counts as failed', 1, 300),
  webhookFirstRetryS: integer('WEBHOOK_FIRST_RETRY_S', 60, 'a failed webhook delivery is tried again after this long, then after twice as long each time', 1),
  webhookRetryForS: integer('WEBHOOK_RETRY_FOR_S', 86_400, 'a failed webhook delivery is retried while the next attempt falls within this long of its first one (then it is failed; it can be redelivered by hand)', 0),
  webhookAllowPrivateAddresses: boolean(
    'WEBHOOK_ALLOW_PRIVATE_ADDRESSES',
    false,
    'let webhooks call loopback, private and link-local addresses (off: any user could otherwise make the server reach its own network, e.g. a cloud metadata address; turn on for receivers inside your network)',
  ),
});

export const workspaceModule = defineModule({
  name: 'workspace',
  description: 'workspaces, their usage and the usage summary, their audit log and webhooks',
  deps: [grpcServerModule, grpcClientsModule, httpServerModule, busModule],
  settings: WORKSPACE_SETTINGS,
  projections,
  init: async (ctx) => {
    const settings = ctx.settings(WORKSPACE_SETTINGS);
    const box = createSecretBox(await loadOrCreateMasterKey(ctx.config.dataDir, ctx.config.masterKey));
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
    const sender = new WebhookSender(
      es,
      box,
      ctx.use(grpcClientsModule),
      {
        timeoutMs: settings.webhookTimeoutS * 1000,
        firstRetryMs: settings.webhookFirstRetryS * 1000,
        retryForMs: settings.webhookRetryForS * 1000,
        allowPrivateAddresses: settings.webhookAllowPrivateAddresses,
      },
      ctx.logger,
    );
    const scheduler = await startWebhookScheduler(es, ctx.logger, () => sender.notify(), (error, event, attempt) => {
      if (attempt < EVENT_PROCESSING_ATTEMPTS) return ctx.logger.error({ err: error, attempt, position: event?.position }, 'webhook scheduling failed; retrying');
      ctx.fail(new Error(`webhook scheduling failed ${attempt} times in a row`, { cause: error }));
    });
    sender.start();
    ctx.use(httpServerModule).addReadinessCheck('workspace', es.ready);
    const grpc = ctx.use(grpcServerModule).server;
    grpc.add(WorkspaceServiceDefinition, workspaceHandlers(es, settings));
    grpc.add(WebhookServiceDefinition, webhookHandlers(es, box, () => sender.notify()));
    return {
      value: undefined,
      stop: async () => {
        await scheduler.stop();
        await sender.stop();
        await es.stop();
      },
    };
  },
});
