import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { nextAttemptAfterFailure, webhookDeliveryDecider, type AttemptOutcome, type RetryPolicy } from './webhook-delivery.decider';
import type { WebhookDeliveryEvent } from './webhook.events';

const spec = deciderSpec(webhookDeliveryDecider);
const retry: RetryPolicy = { firstRetryMs: 60_000, retryForMs: 24 * 3_600_000 };
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1) + minutes * 60_000).toISOString();
const scheduled = (awaits = false): WebhookDeliveryEvent => ({
  type: 'WebhookDeliveryScheduled',
  data: {
    deliveryId: 'd-1',
    webhookId: 'w-1',
    workspaceId: 'ws-1',
    event: awaits ? 'package.published' : 'repository.created',
    body: '{}',
    scheduledAt: at(0),
    awaitsRepositoryId: awaits ? 'r-1' : '',
    awaitsPackageId: awaits ? 'p-1' : '',
  },
});
const failure: AttemptOutcome = { statusCode: 500, durationMs: 12, responseExcerpt: 'oops', error: 'HTTP 500', succeeded: false };
const success: AttemptOutcome = { statusCode: 204, durationMs: 8, responseExcerpt: '', error: '', succeeded: true };
const attempted = (attempt: number, minutes: number, outcome: AttemptOutcome, next: string): WebhookDeliveryEvent => ({
  type: 'WebhookDeliveryAttempted',
  data: { deliveryId: 'd-1', attempt, attemptedAt: at(minutes), ...outcome, nextAttemptAt: next },
});

describe('webhook delivery decider', () => {
  it('schedules once: the same delivery scheduled again (a replay) changes nothing', () => {
    spec.given([]).when({ type: 'ScheduleDelivery', deliveryId: 'd-1', webhookId: 'w-1', workspaceId: 'ws-1', event: 'repository.created', body: '{}', now: at(0) }).then([scheduled()]);
    spec.given([scheduled()]).when({ type: 'ScheduleDelivery', deliveryId: 'd-1', webhookId: 'w-1', workspaceId: 'ws-1', event: 'repository.created', body: '{}', now: at(1) }).then([]);
  });

  it('a package.published delivery is attempted only after its release (the edge serves the package)', () => {
    spec.given([scheduled(true)]).when({ type: 'RecordAttempt', outcome: success, retry, now: at(1) }).then([]);
    spec.given([scheduled(true)]).when({ type: 'ReleaseDelivery', now: at(1) }).then([{ type: 'WebhookDeliveryReleased', data: { deliveryId: 'd-1', releasedAt: at(1) } }]);
    spec
      .given([scheduled(true), { type: 'WebhookDeliveryReleased', data: { deliveryId: 'd-1', releasedAt: at(1) } }])
      .when({ type: 'RecordAttempt', outcome: success, retry, now: at(2) })
      .then([attempted(1, 2, success, '')]);
  });

  it('retries a failure after 1 minute, then 2, 4…, and gives up once the next attempt would fall beyond 24 hours of the first', () => {
    spec.given([scheduled()]).when({ type: 'RecordAttempt', outcome: failure, retry, now: at(0) }).then([attempted(1, 0, failure, at(1))]);
    spec.given([scheduled(), attempted(1, 0, failure, at(1))]).when({ type: 'RecordAttempt', outcome: failure, retry, now: at(1) }).then([attempted(2, 1, failure, at(3))]);
    // attempt 11 comes 1023 minutes in; the next would be 1024 minutes later, past 1440
    expect(nextAttemptAfterFailure(10, at(0), at(511), retry)).toBe(at(1023));
    expect(nextAttemptAfterFailure(11, at(0), at(1023), retry)).toBe('');
  });

  it('a redelivery sends a failed delivery again under its id, in a new retry window', () => {
    const given = [scheduled(), attempted(1, 0, failure, '')];
    spec.given(given).when({ type: 'Redeliver', now: at(2000) }).then([{ type: 'WebhookRedeliveryRequested', data: { deliveryId: 'd-1', requestedAt: at(2000) } }]);
    spec
      .given([...given, { type: 'WebhookRedeliveryRequested', data: { deliveryId: 'd-1', requestedAt: at(2000) } }])
      .when({ type: 'RecordAttempt', outcome: failure, retry, now: at(2000) })
      .then([attempted(2, 2000, failure, at(2001))]);
  });

  it('cancels a waiting delivery, never a finished one; a delivery still waiting for its package cannot be redelivered', () => {
    spec.given([scheduled(true)]).when({ type: 'CancelDelivery', reason: 'gone', now: at(1) }).then([{ type: 'WebhookDeliveryCancelled', data: { deliveryId: 'd-1', reason: 'gone', cancelledAt: at(1) } }]);
    spec.given([scheduled(), attempted(1, 0, success, '')]).when({ type: 'CancelDelivery', reason: 'gone', now: at(1) }).then([]);
    spec.given([scheduled(true)]).when({ type: 'Redeliver', now: at(1) }).thenThrows('This delivery waits for the package to be served; it goes out by itself then');
  });
});
