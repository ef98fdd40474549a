import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { PackageDeleted } from '@packyard/formats/recorded-distributions';
import { decodeEvent, handleCommand, isInboxEvent, type EventSourcing, type RecordedEvent, type Subscription } from '@packyard/platform';
import { WEBHOOK_DELIVERIES, WEBHOOKS, type WebhookDeliveryDocument, type WebhookDocument } from '../projections/webhooks.projection';
import { WORKSPACES, type WorkspaceDocument } from '../projections/workspaces.projection';
import { announcementsOf } from './webhook-announcements';
import { webhookDeliveryDecider } from './webhook-delivery.decider';
import { webhookDeliveryStream } from './webhook.events';

const CHECKPOINT = 'webhook-scheduler';

/** the same delivery id each time one event is scheduled for one webhook, so a replay finds its stream taken */
export const deliveryIdOf = (eventId: string, webhookId: string) => {
  const hex = createHash('sha256').update(`${eventId}:${webhookId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** The JSON every delivery sends: the delivery id, the event, when it happened, the workspace and the object. */
export function webhookBody(deliveryId: string, type: string, occurredAt: string, workspace: Pick<WorkspaceDocument, 'id' | 'slug' | 'name'>, data: Record<string, unknown>): string {
  return JSON.stringify({ id: deliveryId, type, timestamp: occurredAt, workspace: { id: workspace.id, slug: workspace.slug, name: workspace.name }, data });
}

/**
 * Follows the module's log from its checkpoint and turns what other modules did (recorded in
 * the inbox) into scheduled deliveries, one per webhook of the workspace that wants the event
 * and existed before it happened (none while the workspace is deleted). The deliveries are events in the same log, so the queue is
 * an outbox: nothing scheduled is lost in a crash, and the checkpoint is saved only after.
 * A package deleted before the edge served it cancels its waiting package.published deliveries.
 */
export async function startWebhookScheduler(es: EventSourcing, logger: Logger, onScheduled: () => void, onError: (error: unknown, event: RecordedEvent | undefined, attempt: number) => void): Promise<Subscription> {
  const webhooks = es.readModels.collection<WebhookDocument>(WEBHOOKS);
  const deliveries = es.readModels.collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES);
  const workspaces = es.readModels.collection<WorkspaceDocument>(WORKSPACES);
  const from = await es.readModels.getCheckpoint(CHECKPOINT);
  return es.events.subscribe(
    from,
    async (event) => {
      if (isInboxEvent(event.stream)) {
        // the read models must show every webhook made before this event (and its names)
        await es.caughtUp(event.position, 30_000);
        let scheduled = 0;
        for (const announcement of await announcementsOf(event, es.readModels)) {
          // a deleted workspace (in its grace period, or gone) is sent nothing
          const workspace = await workspaces.get(announcement.workspaceId);
          if (!workspace) continue;
          const listening = (await webhooks.find({ workspaceId: announcement.workspaceId, active: true })).filter(
            (hook) => hook.createdPosition < event.position && hook.events.includes(announcement.type),
          );
          for (const hook of listening) {
            const deliveryId = deliveryIdOf(event.id, hook.id);
            const result = await handleCommand(es.events, webhookDeliveryStream(deliveryId), webhookDeliveryDecider, {
              type: 'ScheduleDelivery',
              deliveryId,
              webhookId: hook.id,
              workspaceId: announcement.workspaceId,
              event: announcement.type,
              body: webhookBody(deliveryId, announcement.type, announcement.occurredAt, workspace, announcement.data),
              awaits: announcement.awaits,
              now: new Date().toISOString(),
            }, { metadata: { causationId: event.id } });
            scheduled += result.newEvents.length;
          }
        }
        const deleted = decodeEvent(event, { PackageDeleted });
        if (deleted) {
          const { packageId } = deleted.data;
          for (const waiting of await deliveries.find({ awaitsPackageId: packageId, status: 'awaiting-publication' })) {
            await handleCommand(es.events, webhookDeliveryStream(waiting.id), webhookDeliveryDecider, {
              type: 'CancelDelivery',
              reason: 'the package was deleted before the edge served it',
              now: new Date().toISOString(),
            });
          }
        }
        if (scheduled) {
          logger.debug({ event: event.type, scheduled }, 'webhook deliveries scheduled');
          onScheduled();
        }
      }
      await es.readModels.setCheckpoint(CHECKPOINT, event.position);
    },
    { onError },
  );
}
