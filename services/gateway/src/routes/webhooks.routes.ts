import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { WebhookServiceDefinition, type Webhook, type WebhookDelivery } from '@packyard/proto/packyard/workspace/v1/webhooks';
import type { GatewayOptions } from '../app';

/** the events a webhook can ask for (the workspace module's WEBHOOK_EVENTS) */
const EVENTS = ['package.published', 'package.deleted', 'repository.created', 'repository.deleted', 'token.revoked'] as const;
const DELIVERY_STATUSES = ['awaiting-publication', 'pending', 'succeeded', 'failed', 'cancelled'] as const;

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const EventName = Type.String({ enum: [...EVENTS] });

const WebhookSchema = Type.Object({
  id: Type.String(),
  workspaceId: Type.String(),
  url: Type.String({ description: 'http:// or https:// address each delivery is POSTed to' }),
  events: Type.Array(EventName),
  active: Type.Boolean({ description: 'an inactive webhook is sent nothing (its pending deliveries are cancelled)' }),
  createdAt: Type.String({ format: 'date-time' }),
  secret: Type.Optional(Type.String({ description: 'only in the answer to the creation: it cannot be seen again. Signs every delivery (Packyard-Signature)' })),
  lastDelivery: nullable(
    Type.Object({
      status: Type.String({ enum: [...DELIVERY_STATUSES] }),
      statusCode: nullable(Type.Integer()),
      at: Type.String({ format: 'date-time' }),
    }),
  ),
});

const AttemptSchema = Type.Object({
  attempt: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  statusCode: nullable(Type.Integer({ description: "the receiver's HTTP status; null when it did not answer" })),
  durationMs: Type.Integer(),
  responseExcerpt: Type.String({ description: 'the first 1024 bytes of the answer' }),
  error: Type.String(),
  succeeded: Type.Boolean(),
});

const DeliverySchema = Type.Object({
  id: Type.String({ description: 'the delivery id, also the body\'s "id" and the Packyard-Delivery header; the same in every attempt' }),
  webhookId: Type.String(),
  event: Type.String({ description: 'one of the events, or "ping"' }),
  status: Type.String({ enum: [...DELIVERY_STATUSES], description: 'awaiting-publication: a package.published delivery waits until the edge serves the package' }),
  createdAt: Type.String({ format: 'date-time' }),
  attempts: Type.Integer(),
  nextAttemptAt: nullable(Type.String({ format: 'date-time' })),
  lastStatusCode: nullable(Type.Integer()),
  lastDurationMs: nullable(Type.Integer()),
  lastError: Type.String(),
  lastResponseExcerpt: Type.String(),
  cancelReason: Type.String(),
});
const DeliveryDetailSchema = Type.Intersect([DeliverySchema, Type.Object({ body: Type.String({ description: 'the JSON body sent' }), attemptLog: Type.Array(AttemptSchema) })]);

const WebhookBody = Type.Object({
  url: Type.String({ maxLength: 2000 }),
  // at least one: checked after tenancy, so another user's workspace is 404 whatever the body
  events: Type.Array(EventName, { uniqueItems: true, description: 'at least one' }),
  active: Type.Optional(Type.Boolean({ description: 'default true' })),
});
const WebhookPatch = Type.Partial(WebhookBody);

const InWorkspace = Type.Object({ id: Type.String() });
const WebhookPath = Type.Object({ id: Type.String(), webhookId: Type.String() });
const DeliveryPath = Type.Object({ id: Type.String(), webhookId: Type.String(), deliveryId: Type.String() });

const webhookJson = ({ id, workspaceId, url, events, active, createdAt, secret, lastDeliveryStatus, lastStatusCode, lastDeliveryAt }: Webhook) => ({
  id,
  workspaceId,
  url,
  events,
  active,
  createdAt,
  ...(secret ? { secret } : {}),
  lastDelivery: lastDeliveryStatus ? { status: lastDeliveryStatus, statusCode: lastStatusCode || null, at: lastDeliveryAt } : null,
});

const deliveryJson = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  webhookId: delivery.webhookId,
  event: delivery.event,
  status: delivery.status,
  createdAt: delivery.createdAt,
  attempts: delivery.attempts,
  nextAttemptAt: delivery.nextAttemptAt || null,
  lastStatusCode: delivery.lastStatusCode || null,
  lastDurationMs: delivery.attempts ? delivery.lastDurationMs : null,
  lastError: delivery.lastError,
  lastResponseExcerpt: delivery.lastResponseExcerpt,
  cancelReason: delivery.cancelReason,
});

const deliveryDetailJson = (delivery: WebhookDelivery) => ({
  ...deliveryJson(delivery),
  body: delivery.body,
  attemptLog: delivery.attemptLog.map((attempt) => ({ ...attempt, statusCode: attempt.statusCode || null })),
});

/** `/v1/workspaces/{id}/webhooks`: a workspace's webhooks, a test ping, the delivery log and redelivery. */
export const webhooksRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const webhooks = clients.client(WebhookServiceDefinition, 'workspace');
  const tags = ['webhooks'];
  const security = [{ bearer: [] }];

  app.get(
    '/workspaces/:id/webhooks',
    { schema: { tags, security, description: "The workspace's webhooks (secrets are never listed)", params: InWorkspace, response: { 200: Type.Array(WebhookSchema) } } },
    async (request) => (await webhooks.listWebhooks({ workspaceId: request.params.id }, { caller: request.caller })).webhooks.map(webhookJson),
  );

  app.post(
    '/workspaces/:id/webhooks',
    {
      schema: {
        tags,
        security,
        description: 'Creates a webhook; the answer holds its secret, shown only this once',
        params: InWorkspace,
        body: WebhookBody,
        response: { 201: WebhookSchema },
      },
    },
    async (request, reply) => {
      const created = await webhooks.createWebhook(
        { workspaceId: request.params.id, url: request.body.url, events: request.body.events, active: request.body.active ?? true },
        { caller: request.caller },
      );
      return reply.code(201).send(webhookJson(created));
    },
  );

  app.patch(
    '/workspaces/:id/webhooks/:webhookId',
    { schema: { tags, security, description: 'Changes the URL, the events or whether it is active', params: WebhookPath, body: WebhookPatch, response: { 200: WebhookSchema } } },
    async (request) =>
      webhookJson(
        await webhooks.updateWebhook(
          {
            workspaceId: request.params.id,
            id: request.params.webhookId,
            url: request.body.url,
            events: request.body.events ?? [],
            eventsSet: request.body.events !== undefined,
            active: request.body.active,
          },
          { caller: request.caller },
        ),
      ),
  );

  app.delete('/workspaces/:id/webhooks/:webhookId', { schema: { tags, security, params: WebhookPath } }, async (request, reply) => {
    await webhooks.deleteWebhook({ workspaceId: request.params.id, id: request.params.webhookId }, { caller: request.caller });
    return reply.code(204).send();
  });

  app.post(
    '/workspaces/:id/webhooks/:webhookId/ping',
    { schema: { tags, security, description: 'Sends a "ping" delivery now; it appears in the delivery log', params: WebhookPath, response: { 202: DeliverySchema } } },
    async (request, reply) => reply.code(202).send(deliveryJson(await webhooks.pingWebhook({ workspaceId: request.params.id, id: request.params.webhookId }, { caller: request.caller }))),
  );

  app.get(
    '/workspaces/:id/webhooks/:webhookId/deliveries',
    {
      schema: {
        tags,
        security,
        description: 'The delivery log, newest first: status, status code, duration, attempts and the first bytes of the answer',
        params: WebhookPath,
        querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 0, default: 0 })), size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 25 })) }),
        response: { 200: Type.Object({ items: Type.Array(DeliverySchema), total: Type.Integer() }) },
      },
    },
    async (request) => {
      const { deliveries, total } = await webhooks.listWebhookDeliveries(
        { workspaceId: request.params.id, webhookId: request.params.webhookId, page: request.query.page ?? 0, size: request.query.size ?? 25 },
        { caller: request.caller },
      );
      return { items: deliveries.map(deliveryJson), total };
    },
  );

  app.get(
    '/workspaces/:id/webhooks/:webhookId/deliveries/:deliveryId',
    { schema: { tags, security, description: 'One delivery with the body sent and every attempt', params: DeliveryPath, response: { 200: DeliveryDetailSchema } } },
    async (request) =>
      deliveryDetailJson(await webhooks.getWebhookDelivery({ workspaceId: request.params.id, webhookId: request.params.webhookId, deliveryId: request.params.deliveryId }, { caller: request.caller })),
  );

  app.post(
    '/workspaces/:id/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    { schema: { tags, security, description: 'Sends the delivery again (same id, same body) as its next attempt; a new retry window begins', params: DeliveryPath, response: { 202: DeliverySchema } } },
    async (request, reply) =>
      reply
        .code(202)
        .send(deliveryJson(await webhooks.redeliverWebhookDelivery({ workspaceId: request.params.id, webhookId: request.params.webhookId, deliveryId: request.params.deliveryId }, { caller: request.caller }))),
  );
};
