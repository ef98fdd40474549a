import { assertNever, conflict, type Decider } from '@packyard/platform';
import type { WebhookDeliveryEvent } from './webhook.events';

export type DeliveryStatus = 'awaiting-publication' | 'pending' | 'succeeded' | 'failed' | 'cancelled';

export type WebhookDelivery =
  | { status: 'none' }
  | {
      status: DeliveryStatus;
      deliveryId: string;
      attempts: number;
      /** attempts made before the current retry window began (a redelivery opens a new one) */
      attemptsBeforeWindow: number;
      /** when the current window's first attempt was made ('' before it) */
      windowStartedAt: string;
    };

/** how failed attempts are retried: after `firstRetryMs`, doubling, for as long as the next attempt falls within `retryForMs` of the window's first */
export interface RetryPolicy {
  firstRetryMs: number;
  retryForMs: number;
}

export interface AttemptOutcome {
  statusCode: number;
  durationMs: number;
  responseExcerpt: string;
  error: string;
  succeeded: boolean;
}

export type WebhookDeliveryCommand =
  | { type: 'ScheduleDelivery'; deliveryId: string; webhookId: string; workspaceId: string; event: string; body: string; awaits?: { repositoryId: string; packageId: string }; now: string }
  | { type: 'ReleaseDelivery'; now: string }
  | { type: 'RecordAttempt'; outcome: AttemptOutcome; retry: RetryPolicy; now: string }
  | { type: 'CancelDelivery'; reason: string; now: string }
  | { type: 'Redeliver'; now: string };

/** when the next attempt is due after a failed one, or '' once the retry window is spent */
export function nextAttemptAfterFailure(attemptInWindow: number, windowStartedAt: string, now: string, { firstRetryMs, retryForMs }: RetryPolicy): string {
  const next = Date.parse(now) + firstRetryMs * 2 ** (attemptInWindow - 1);
  return next - Date.parse(windowStartedAt) > retryForMs ? '' : new Date(next).toISOString();
}

/**
 * One event sent to one webhook: scheduled (a package.published one first waits for the
 * edge to serve the package), attempted until a 2xx or the retry window is spent, cancelled
 * when what it announces went away first, and sent again on request under the same id.
 * Every step is an event in the module's log, so the queue survives a crash.
 */
export const webhookDeliveryDecider: Decider<WebhookDelivery, WebhookDeliveryCommand, WebhookDeliveryEvent> = {
  initialState: () => ({ status: 'none' }),

  decide(command, state) {
    switch (command.type) {
      case 'ScheduleDelivery':
        // scheduled once: the scheduler replaying an event after a crash changes nothing
        if (state.status !== 'none') return [];
        return [
          {
            type: 'WebhookDeliveryScheduled',
            data: {
              deliveryId: command.deliveryId,
              webhookId: command.webhookId,
              workspaceId: command.workspaceId,
              event: command.event,
              body: command.body,
              scheduledAt: command.now,
              awaitsRepositoryId: command.awaits?.repositoryId ?? '',
              awaitsPackageId: command.awaits?.packageId ?? '',
            },
          },
        ];
      case 'ReleaseDelivery':
        if (state.status !== 'awaiting-publication') return [];
        return [{ type: 'WebhookDeliveryReleased', data: { deliveryId: state.deliveryId, releasedAt: command.now } }];
      case 'RecordAttempt': {
        if (state.status !== 'pending') return [];
        const attempt = state.attempts + 1;
        const windowStartedAt = state.windowStartedAt || command.now;
        const nextAttemptAt = command.outcome.succeeded ? '' : nextAttemptAfterFailure(attempt - state.attemptsBeforeWindow, windowStartedAt, command.now, command.retry);
        return [{ type: 'WebhookDeliveryAttempted', data: { deliveryId: state.deliveryId, attempt, attemptedAt: command.now, ...command.outcome, nextAttemptAt } }];
      }
      case 'CancelDelivery':
        if (state.status !== 'awaiting-publication' && state.status !== 'pending') return [];
        return [{ type: 'WebhookDeliveryCancelled', data: { deliveryId: state.deliveryId, reason: command.reason, cancelledAt: command.now } }];
      case 'Redeliver':
        if (state.status === 'none') return [];
        if (state.status === 'awaiting-publication') throw conflict('PACKYARD_WEBHOOK_DELIVERY_AWAITING', 'This delivery waits for the package to be served; it goes out by itself then');
        return [{ type: 'WebhookRedeliveryRequested', data: { deliveryId: state.deliveryId, requestedAt: command.now } }];
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WebhookDeliveryScheduled':
        return {
          status: event.data.awaitsPackageId ? 'awaiting-publication' : 'pending',
          deliveryId: event.data.deliveryId,
          attempts: 0,
          attemptsBeforeWindow: 0,
          windowStartedAt: '',
        };
      case 'WebhookDeliveryReleased':
        return state.status === 'none' ? state : { ...state, status: 'pending' };
      case 'WebhookDeliveryAttempted':
        if (state.status === 'none') return state;
        return {
          ...state,
          status: event.data.succeeded ? 'succeeded' : event.data.nextAttemptAt ? 'pending' : 'failed',
          attempts: event.data.attempt,
          windowStartedAt: state.windowStartedAt || event.data.attemptedAt,
        };
      case 'WebhookDeliveryCancelled':
        return state.status === 'none' ? state : { ...state, status: 'cancelled' };
      case 'WebhookRedeliveryRequested':
        return state.status === 'none' ? state : { ...state, status: 'pending', attemptsBeforeWindow: state.attempts, windowStartedAt: '' };
      default:
        return assertNever(event);
    }
  },
};
