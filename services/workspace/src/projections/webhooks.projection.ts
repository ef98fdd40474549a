import { PackageUploaded } from '@packyard/formats/recorded-distributions';
import { decodeEvent, isInboxEvent, type Collection, type Projection } from '@packyard/platform';
import { RepositoryCreated } from '@packyard/proto/packyard/repository/v1/events';
import { AccessTokenCreated, RepoTokenCreated } from '@packyard/proto/packyard/token/v1/events';
import {
  WebhookCreated,
  WebhookDeleted,
  WebhookDeliveryAttempted,
  WebhookDeliveryCancelled,
  WebhookDeliveryReleased,
  WebhookDeliveryScheduled,
  WebhookRedeliveryRequested,
  WebhookUpdated,
  WorkspaceDeleted,
  WorkspacePurged,
} from '@packyard/proto/packyard/workspace/v1/events';
import type { WebhookAttempt } from '@packyard/proto/packyard/workspace/v1/webhooks';
import type { DeliveryStatus } from '../webhooks/webhook-delivery.decider';
import { wasPurgedAtOnce } from '../workspaces/workspace.events';

export interface WebhookDocument {
  id: string;
  workspaceId: string;
  ownerId: string;
  url: string;
  events: string[];
  active: boolean;
  sealedSecret: string;
  createdAt: string;
  /** the log position of its creation: it hears only of what happened after */
  createdPosition: number;
  lastDeliveryStatus: string;
  lastStatusCode: number;
  lastDeliveryAt: string;
}

export interface WebhookDeliveryDocument {
  id: string;
  webhookId: string;
  workspaceId: string;
  event: string;
  status: DeliveryStatus;
  createdAt: string;
  body: string;
  awaitsRepositoryId: string;
  awaitsPackageId: string;
  attempts: number;
  /** '' when none is due */
  nextAttemptAt: string;
  lastStatusCode: number;
  lastDurationMs: number;
  lastError: string;
  lastResponseExcerpt: string;
  cancelReason: string;
  attemptLog: WebhookAttempt[];
}

/** what the webhook bodies name, kept from the events that made them (id: `<kind>:<id>`) */
export interface WebhookSubjectDocument {
  id: string;
  name: string;
  workspaceId?: string;
  kind?: string;
  codename?: string;
  component?: string;
  version?: string;
  architecture?: string;
  repositoryId?: string;
  filename?: string;
}

export const WEBHOOKS = 'webhooks';
export const WEBHOOK_DELIVERIES = 'webhook_deliveries';
export const WEBHOOK_SUBJECTS = 'webhook_subjects';

const FROM_INBOX = { RepositoryCreated, PackageUploaded, RepoTokenCreated, AccessTokenCreated };
const OWN = {
  WorkspaceDeleted,
  WorkspacePurged,
  WebhookCreated,
  WebhookUpdated,
  WebhookDeleted,
  WebhookDeliveryScheduled,
  WebhookDeliveryReleased,
  WebhookDeliveryAttempted,
  WebhookDeliveryCancelled,
  WebhookRedeliveryRequested,
};

export const subjectKey = (kind: 'repository' | 'package' | 'token', id: string) => `${kind}:${id}`;

/** Webhooks, their deliveries (the delivery log and the sender's queue), and the names their bodies use. */
export const webhooksProjection: Projection = {
  name: 'webhooks',
  collections: [WEBHOOKS, WEBHOOK_DELIVERIES, WEBHOOK_SUBJECTS],
  async handle(recorded, readModels) {
    const webhooks = readModels.collection<WebhookDocument>(WEBHOOKS);
    const deliveries = readModels.collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES);
    const subjects = readModels.collection<WebhookSubjectDocument>(WEBHOOK_SUBJECTS);
    if (isInboxEvent(recorded.stream)) {
      const event = decodeEvent(recorded, FROM_INBOX);
      switch (event?.type) {
        case 'RepositoryCreated': {
          const { data } = event;
          await subjects.upsert({ id: subjectKey('repository', data.repositoryId), name: data.name, workspaceId: data.workspaceId, kind: data.kind, codename: data.codename, component: data.component });
          return;
        }
        case 'PackageUploaded': {
          const { data } = event;
          await subjects.upsert({
            id: subjectKey('package', data.packageId),
            name: data.name,
            version: data.version,
            architecture: data.architecture,
            repositoryId: data.repositoryId,
            kind: data.kind,
            filename: data.filename,
          });
          return;
        }
        case 'RepoTokenCreated':
        case 'AccessTokenCreated': {
          const { data } = event;
          await subjects.upsert({ id: subjectKey('token', data.tokenId), name: data.name });
          return;
        }
      }
      return;
    }
    // a workspace's webhooks go when it goes for good (a deletion with a grace period keeps them
    // for a restore; meanwhile the scheduler sends them nothing, as the workspace is hidden)
    const event = decodeEvent(recorded, OWN);
    if ((event?.type === 'WorkspaceDeleted' && wasPurgedAtOnce(event.data)) || event?.type === 'WorkspacePurged') {
      const { workspaceId } = event.data;
      await webhooks.deleteMany({ workspaceId });
      await deliveries.deleteMany({ workspaceId });
      return;
    }
    switch (event?.type) {
      case 'WebhookCreated': {
        const { webhookId, workspaceId, ownerId, url, events, active, sealedSecret, createdAt } = event.data;
        await webhooks.upsert({
          id: webhookId,
          workspaceId,
          ownerId,
          url,
          events,
          active,
          sealedSecret,
          createdAt,
          createdPosition: recorded.position,
          lastDeliveryStatus: '',
          lastStatusCode: 0,
          lastDeliveryAt: '',
        });
        return;
      }
      case 'WebhookUpdated': {
        const doc = await webhooks.get(event.data.webhookId);
        if (doc) await webhooks.upsert({ ...doc, url: event.data.url, events: event.data.events, active: event.data.active });
        return;
      }
      case 'WebhookDeleted':
        await webhooks.delete(event.data.webhookId);
        await deliveries.deleteMany({ webhookId: event.data.webhookId });
        return;
      case 'WebhookDeliveryScheduled': {
        const data = event.data;
        const status: DeliveryStatus = data.awaitsPackageId ? 'awaiting-publication' : 'pending';
        await deliveries.upsert({
          id: data.deliveryId,
          webhookId: data.webhookId,
          workspaceId: data.workspaceId,
          event: data.event,
          status,
          createdAt: data.scheduledAt,
          body: data.body,
          awaitsRepositoryId: data.awaitsRepositoryId,
          awaitsPackageId: data.awaitsPackageId,
          attempts: 0,
          nextAttemptAt: data.awaitsPackageId ? '' : data.scheduledAt,
          lastStatusCode: 0,
          lastDurationMs: 0,
          lastError: '',
          lastResponseExcerpt: '',
          cancelReason: '',
          attemptLog: [],
        });
        await noteLastDelivery(webhooks, data.webhookId, status, 0, data.scheduledAt);
        return;
      }
      case 'WebhookDeliveryReleased': {
        const doc = await deliveries.get(event.data.deliveryId);
        if (!doc) return;
        await deliveries.upsert({ ...doc, status: 'pending', nextAttemptAt: event.data.releasedAt });
        await noteLastDelivery(webhooks, doc.webhookId, 'pending', doc.lastStatusCode, event.data.releasedAt);
        return;
      }
      case 'WebhookDeliveryAttempted': {
        const data = event.data;
        const doc = await deliveries.get(data.deliveryId);
        // a replayed event is not logged twice
        if (!doc || doc.attemptLog.some((attempt) => attempt.attempt === data.attempt)) return;
        const status: DeliveryStatus = data.succeeded ? 'succeeded' : data.nextAttemptAt ? 'pending' : 'failed';
        const attempt: WebhookAttempt = {
          attempt: data.attempt,
          at: data.attemptedAt,
          statusCode: data.statusCode,
          durationMs: data.durationMs,
          responseExcerpt: data.responseExcerpt,
          error: data.error,
          succeeded: data.succeeded,
        };
        await deliveries.upsert({
          ...doc,
          status,
          attempts: data.attempt,
          nextAttemptAt: data.nextAttemptAt,
          lastStatusCode: data.statusCode,
          lastDurationMs: data.durationMs,
          lastError: data.error,
          lastResponseExcerpt: data.responseExcerpt,
          attemptLog: [...doc.attemptLog, attempt],
        });
        await noteLastDelivery(webhooks, doc.webhookId, status, data.statusCode, data.attemptedAt);
        return;
      }
      case 'WebhookDeliveryCancelled': {
        const doc = await deliveries.get(event.data.deliveryId);
        if (!doc) return;
        await deliveries.upsert({ ...doc, status: 'cancelled', nextAttemptAt: '', cancelReason: event.data.reason });
        await noteLastDelivery(webhooks, doc.webhookId, 'cancelled', doc.lastStatusCode, event.data.cancelledAt);
        return;
      }
      case 'WebhookRedeliveryRequested': {
        const doc = await deliveries.get(event.data.deliveryId);
        if (!doc) return;
        await deliveries.upsert({ ...doc, status: 'pending', nextAttemptAt: event.data.requestedAt, cancelReason: '' });
        await noteLastDelivery(webhooks, doc.webhookId, 'pending', doc.lastStatusCode, event.data.requestedAt);
        return;
      }
    }
  },
};

/** the webhook list shows how its latest delivery went */
async function noteLastDelivery(webhooks: Collection<WebhookDocument>, webhookId: string, status: string, statusCode: number, at: string) {
  const doc = await webhooks.get(webhookId);
  if (doc && doc.lastDeliveryAt <= at) await webhooks.upsert({ ...doc, lastDeliveryStatus: status, lastStatusCode: statusCode, lastDeliveryAt: at });
}
