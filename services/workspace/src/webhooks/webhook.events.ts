import type { DomainEvent } from '@packyard/platform';
import type {
  WebhookCreated as WebhookCreatedData,
  WebhookDeleted as WebhookDeletedData,
  WebhookDeliveryAttempted as WebhookDeliveryAttemptedData,
  WebhookDeliveryCancelled as WebhookDeliveryCancelledData,
  WebhookDeliveryReleased as WebhookDeliveryReleasedData,
  WebhookDeliveryScheduled as WebhookDeliveryScheduledData,
  WebhookRedeliveryRequested as WebhookRedeliveryRequestedData,
  WebhookUpdated as WebhookUpdatedData,
} from '@packyard/proto/packyard/workspace/v1/events';

/** the events a webhook can subscribe to (a "ping" is sent on request, to any webhook) */
export const WEBHOOK_EVENTS = ['package.published', 'package.deleted', 'repository.created', 'repository.deleted', 'token.revoked'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
export const PING_EVENT = 'ping';

export type WebhookEvent =
  | DomainEvent<'WebhookCreated', WebhookCreatedData>
  | DomainEvent<'WebhookUpdated', WebhookUpdatedData>
  | DomainEvent<'WebhookDeleted', WebhookDeletedData>;

export type WebhookDeliveryEvent =
  | DomainEvent<'WebhookDeliveryScheduled', WebhookDeliveryScheduledData>
  | DomainEvent<'WebhookDeliveryReleased', WebhookDeliveryReleasedData>
  | DomainEvent<'WebhookDeliveryAttempted', WebhookDeliveryAttemptedData>
  | DomainEvent<'WebhookDeliveryCancelled', WebhookDeliveryCancelledData>
  | DomainEvent<'WebhookRedeliveryRequested', WebhookRedeliveryRequestedData>;

export const webhookStream = (webhookId: string) => `webhook-${webhookId}`;
/** one stream per delivery: scheduling it twice (a replay after a crash) finds the stream taken */
export const webhookDeliveryStream = (deliveryId: string) => `webhook_delivery-${deliveryId}`;
