import { randomUUID } from 'node:crypto';
import type { ServiceImplementation } from 'nice-grpc';
import { conflict, forbidden, handleCommand, notFound, type Caller, type CallerContext, type EventSourcing } from '@packyard/platform';
import type { SecretBox } from '@packyard/platform/crypto/index';
import type { Webhook, WebhookDelivery, WebhookServiceDefinition } from '@packyard/proto/packyard/workspace/v1/webhooks';
import { WEBHOOK_DELIVERIES, WEBHOOKS, type WebhookDeliveryDocument, type WebhookDocument } from '../projections/webhooks.projection';
import { webhookBody } from '../webhooks/webhook-scheduler';
import { webhookDeliveryDecider } from '../webhooks/webhook-delivery.decider';
import { webhookDecider } from '../webhooks/webhook.decider';
import { PING_EVENT, webhookDeliveryStream, webhookStream } from '../webhooks/webhook.events';
import { newWebhookSecret } from '../webhooks/webhook-signature';
import { LIMITED_TOKEN } from './workspace.handlers';
import { workspaceVisibility } from './workspace-visibility';

const DELIVERY_PAGE_SIZE = 25;
const MAX_DELIVERY_PAGE_SIZE = 200;
/** webhooks of one workspace: each one is a queue of outgoing requests */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

const toWebhook = (doc: WebhookDocument, secret = ''): Webhook => ({
  id: doc.id,
  workspaceId: doc.workspaceId,
  url: doc.url,
  events: doc.events,
  active: doc.active,
  createdAt: doc.createdAt,
  secret,
  lastDeliveryStatus: doc.lastDeliveryStatus,
  lastStatusCode: doc.lastStatusCode,
  lastDeliveryAt: doc.lastDeliveryAt,
});

const toDelivery = (doc: WebhookDeliveryDocument): WebhookDelivery => ({
  id: doc.id,
  webhookId: doc.webhookId,
  event: doc.event,
  status: doc.status,
  createdAt: doc.createdAt,
  attempts: doc.attempts,
  nextAttemptAt: doc.nextAttemptAt,
  lastStatusCode: doc.lastStatusCode,
  lastDurationMs: doc.lastDurationMs,
  lastError: doc.lastError,
  lastResponseExcerpt: doc.lastResponseExcerpt,
  cancelReason: doc.cancelReason,
  body: doc.body,
  attemptLog: doc.attemptLog,
});

/**
 * Webhooks of a workspace, for its owner (another user's ids are 404, like the workspace);
 * a token limited to one repository manages none. `notify` wakes the sender after a ping or
 * a redelivery.
 */
export function webhookHandlers(es: EventSourcing, box: SecretBox, notify: () => void): ServiceImplementation<typeof WebhookServiceDefinition, CallerContext> {
  const webhooks = es.readModels.collection<WebhookDocument>(WEBHOOKS);
  const deliveries = es.readModels.collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES);
  const { visibleWorkspace } = workspaceVisibility(es.readModels);

  const workspaceOf = async (caller: Caller, workspaceId: string) => {
    const workspace = await visibleWorkspace(caller, workspaceId);
    if (caller.repositoryId) throw forbidden(LIMITED_TOKEN);
    return workspace;
  };
  const visibleWebhook = async (caller: Caller, workspaceId: string, id: string) => {
    const workspace = await workspaceOf(caller, workspaceId);
    const hook = id ? await webhooks.get(id) : undefined;
    if (!hook || hook.workspaceId !== workspace.id) throw notFound('PACKYARD_WEBHOOK_NOT_FOUND', 'Webhook not found');
    return { workspace, hook };
  };
  const visibleDelivery = async (caller: Caller, workspaceId: string, webhookId: string, id: string) => {
    const { hook } = await visibleWebhook(caller, workspaceId, webhookId);
    const delivery = id ? await deliveries.get(id) : undefined;
    if (!delivery || delivery.webhookId !== hook.id) throw notFound('PACKYARD_WEBHOOK_DELIVERY_NOT_FOUND', 'Delivery not found');
    return delivery;
  };
  const changeWebhook = async (caller: Caller, id: string, command: Parameters<typeof webhookDecider.decide>[0]) => {
    const result = await handleCommand(es.events, webhookStream(id), webhookDecider, command, { metadata: { caller } });
    await es.caughtUp(result.lastPosition);
  };
  const changeDelivery = async (caller: Caller, id: string, command: Parameters<typeof webhookDeliveryDecider.decide>[0]) => {
    const result = await handleCommand(es.events, webhookDeliveryStream(id), webhookDeliveryDecider, command, { metadata: { caller } });
    await es.caughtUp(result.lastPosition);
    notify();
    return toDelivery((await deliveries.get(id))!);
  };

  return {
    async createWebhook(request, { caller }) {
      const workspace = await workspaceOf(caller, request.workspaceId);
      if ((await webhooks.count({ workspaceId: workspace.id })) >= MAX_WEBHOOKS_PER_WORKSPACE) {
        throw conflict('PACKYARD_WEBHOOK_LIMIT', `A workspace can have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks`);
      }
      const id = randomUUID();
      const secret = newWebhookSecret();
      await changeWebhook(caller, id, {
        type: 'CreateWebhook',
        webhookId: id,
        workspaceId: workspace.id,
        ownerId: workspace.ownerId,
        url: request.url,
        events: request.events,
        active: request.active,
        sealedSecret: box.seal(secret, id),
        now: new Date().toISOString(),
      });
      return toWebhook((await webhooks.get(id))!, secret);
    },

    async listWebhooks(request, { caller }) {
      const workspace = await workspaceOf(caller, request.workspaceId);
      const docs = await webhooks.find({ workspaceId: workspace.id }, { sort: { field: 'createdAt', direction: 1 } });
      return { webhooks: docs.map((doc) => toWebhook(doc)) };
    },

    async updateWebhook(request, { caller }) {
      const { hook } = await visibleWebhook(caller, request.workspaceId, request.id);
      await changeWebhook(caller, hook.id, {
        type: 'UpdateWebhook',
        url: request.url ?? hook.url,
        events: request.eventsSet ? request.events : hook.events,
        active: request.active ?? hook.active,
        now: new Date().toISOString(),
      });
      return toWebhook((await webhooks.get(hook.id))!);
    },

    async deleteWebhook(request, { caller }) {
      const { hook } = await visibleWebhook(caller, request.workspaceId, request.id);
      await changeWebhook(caller, hook.id, { type: 'DeleteWebhook', now: new Date().toISOString() });
      return {};
    },

    async pingWebhook(request, { caller }) {
      const { workspace, hook } = await visibleWebhook(caller, request.workspaceId, request.id);
      const deliveryId = randomUUID();
      const now = new Date().toISOString();
      return changeDelivery(caller, deliveryId, {
        type: 'ScheduleDelivery',
        deliveryId,
        webhookId: hook.id,
        workspaceId: workspace.id,
        event: PING_EVENT,
        body: webhookBody(deliveryId, PING_EVENT, now, workspace, { webhook: { id: hook.id, url: hook.url, events: hook.events } }),
        now,
      });
    },

    async listWebhookDeliveries(request, { caller }) {
      const { hook } = await visibleWebhook(caller, request.workspaceId, request.webhookId);
      const size = Math.min(Math.max(request.size || DELIVERY_PAGE_SIZE, 1), MAX_DELIVERY_PAGE_SIZE);
      const [docs, total] = await Promise.all([
        deliveries.find({ webhookId: hook.id }, { sort: { field: 'createdAt', direction: -1 }, skip: Math.max(request.page, 0) * size, limit: size }),
        deliveries.count({ webhookId: hook.id }),
      ]);
      return { deliveries: docs.map(toDelivery), total };
    },

    async getWebhookDelivery(request, { caller }) {
      return toDelivery(await visibleDelivery(caller, request.workspaceId, request.webhookId, request.deliveryId));
    },

    async redeliverWebhookDelivery(request, { caller }) {
      const delivery = await visibleDelivery(caller, request.workspaceId, request.webhookId, request.deliveryId);
      if (!(await webhooks.get(delivery.webhookId))?.active) throw conflict('PACKYARD_WEBHOOK_INACTIVE', 'Turn the webhook on to send deliveries again');
      return changeDelivery(caller, delivery.id, { type: 'Redeliver', now: new Date().toISOString() });
    },
  };
}
