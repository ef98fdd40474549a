import { describe, expect, it } from 'vitest';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { WEBHOOK_DELIVERIES, WEBHOOKS, webhooksProjection, type WebhookDeliveryDocument, type WebhookDocument } from './webhooks.projection';

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
const created = {
  type: 'WebhookCreated',
  stream: 'webhook-w-1',
  data: { webhookId: 'w-1', workspaceId: 'ws-1', ownerId: 'u-1', url: 'https://ci.example.com/hook', events: ['token.revoked'], active: true, sealedSecret: 'v1.x', createdAt: at(0) },
};
const scheduled = {
  type: 'WebhookDeliveryScheduled',
  stream: 'webhook_delivery-d-1',
  data: { deliveryId: 'd-1', webhookId: 'w-1', workspaceId: 'ws-1', event: 'token.revoked', body: '{}', scheduledAt: at(1), awaitsRepositoryId: '', awaitsPackageId: '' },
};
const attempted = (attempt: number, minute: number, statusCode: number, next: string) => ({
  type: 'WebhookDeliveryAttempted',
  stream: 'webhook_delivery-d-1',
  data: { deliveryId: 'd-1', attempt, attemptedAt: at(minute), statusCode, durationMs: 20, responseExcerpt: 'body', error: statusCode === 200 ? '' : `HTTP ${statusCode}`, succeeded: statusCode === 200, nextAttemptAt: next },
});

describe('webhooks projection', () => {
  it('logs each attempt once (a replay adds none) and shows the latest outcome on the webhook', () =>
    projectionSpec(webhooksProjection)
      .given([created, scheduled])
      .when([attempted(1, 1, 500, at(2)), attempted(2, 2, 200, '')])
      .then(async (readModels) => {
        const delivery = await readModels.collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES).get('d-1');
        expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 200, nextAttemptAt: '' });
        expect(delivery?.attemptLog.map((attempt) => [attempt.attempt, attempt.statusCode])).toEqual([
          [1, 500],
          [2, 200],
        ]);
        expect(await readModels.collection<WebhookDocument>(WEBHOOKS).get('w-1')).toMatchObject({ lastDeliveryStatus: 'succeeded', lastStatusCode: 200, lastDeliveryAt: at(2) });
      }));

  it("keeps a deleted workspace's webhooks through its grace period (for a restore) and forgets them when it is purged", async () => {
    const deleted = { type: 'WorkspaceDeleted', stream: 'workspace-acme', data: { workspaceId: 'ws-1', ownerId: 'u-1', deletedAt: at(3), purgeAt: at(30) } };
    await projectionSpec(webhooksProjection)
      .given([created, scheduled])
      .when([deleted])
      .then(async (readModels) => {
        expect(await readModels.collection(WEBHOOKS).get('w-1')).toBeDefined();
      });
    await projectionSpec(webhooksProjection)
      .given([created, scheduled, deleted])
      .when([{ type: 'WorkspacePurged', stream: 'workspace-acme', data: { workspaceId: 'ws-1', ownerId: 'u-1', purgedAt: at(30) } }])
      .then(async (readModels) => {
        expect(await readModels.collection(WEBHOOKS).find({})).toEqual([]);
        expect(await readModels.collection(WEBHOOK_DELIVERIES).find({})).toEqual([]);
      });
  });
});
