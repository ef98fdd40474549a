import type { Logger } from 'pino';
import { handleCommand, serviceCaller, waitUntilServed, type EventSourcing, type GrpcClients } from '@packyard/platform';
import { Pause } from '@packyard/platform/eventsourcing/pause';
import type { SecretBox } from '@packyard/platform/crypto/index';
import { WEBHOOK_DELIVERIES, WEBHOOKS, type WebhookDeliveryDocument, type WebhookDocument } from '../projections/webhooks.projection';
import { webhookDeliveryDecider, type RetryPolicy, type WebhookDeliveryCommand } from './webhook-delivery.decider';
import { postWebhook } from './webhook-request';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature';
import { webhookDeliveryStream } from './webhook.events';

export const WEBHOOK_USER_AGENT = 'Packyard-Webhooks/1.0';
const WORKSPACE_CALLER = serviceCaller('workspace');
/** the queue is looked at this often when nothing wakes the sender */
const IDLE_POLL_MS = 1_000;
const SENDS_AT_ONCE = 8;
const PUBLICATION_WAITS_AT_ONCE = 16;
/** a package.published delivery whose package is not served yet is checked again after this */
const PUBLICATION_RECHECK_MS = 5_000;

export interface WebhookSenderSettings extends RetryPolicy {
  timeoutMs: number;
  allowPrivateAddresses: boolean;
}

/**
 * Works through the delivery queue (the module's log, seen through the deliveries read
 * model): releases package.published deliveries once every delivery replica serves the
 * package (the rule of `?wait=published`), sends what is due, and records each attempt
 * with its status code, duration and the first bytes of the answer; the decider sets when
 * to retry. A crash in mid-send sends that delivery again after the restart, under the same
 * id: receivers can drop the duplicate.
 */
export class WebhookSender {
  private readonly wake = new Pause();
  private readonly sending = new Set<string>();
  private readonly awaiting = new Map<string, number>();
  private stopped = false;
  private loop?: Promise<void>;

  constructor(
    private readonly es: EventSourcing,
    private readonly box: SecretBox,
    private readonly clients: GrpcClients,
    private readonly settings: WebhookSenderSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** something was scheduled or asked for: look at the queue now */
  notify(): void {
    this.wake.interrupt();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake.interrupt();
    await this.loop;
  }

  private async run(): Promise<void> {
    const deliveries = this.es.readModels.collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES);
    const inFlight = new Set<Promise<void>>();
    const track = (work: Promise<void>) => {
      inFlight.add(work);
      void work.finally(() => {
        inFlight.delete(work);
        this.wake.interrupt();
      });
    };
    while (!this.stopped) {
      let nextDue = Date.now() + IDLE_POLL_MS;
      try {
        const now = Date.now();
        for (const doc of await deliveries.find({ status: 'pending' }, { sort: { field: 'nextAttemptAt', direction: 1 }, limit: 100 })) {
          const due = Date.parse(doc.nextAttemptAt);
          if (due > now) {
            nextDue = Math.min(nextDue, due);
            break;
          }
          if (this.sending.has(doc.id) || this.sending.size >= SENDS_AT_ONCE) continue;
          this.sending.add(doc.id);
          track(this.send(doc).finally(() => this.sending.delete(doc.id)));
        }
        for (const doc of await deliveries.find({ status: 'awaiting-publication' }, { sort: { field: 'createdAt', direction: 1 }, limit: 500 })) {
          if (this.awaiting.has(doc.id) || this.awaiting.size >= PUBLICATION_WAITS_AT_ONCE) continue;
          this.awaiting.set(doc.id, now);
          track(this.release(doc));
        }
      } catch (error) {
        this.logger.error({ err: error }, 'webhook queue could not be read');
      }
      if (!this.stopped) await this.wake.for(Math.max(0, nextDue - Date.now()));
    }
    await Promise.allSettled(inFlight);
  }

  private async record(deliveryId: string, command: WebhookDeliveryCommand) {
    const result = await handleCommand(this.es.events, webhookDeliveryStream(deliveryId), webhookDeliveryDecider, command);
    await this.es.caughtUp(result.lastPosition, 30_000);
  }

  private async release(doc: WebhookDeliveryDocument): Promise<void> {
    try {
      const served = await waitUntilServed(this.clients, doc.awaitsRepositoryId, doc.awaitsPackageId, WORKSPACE_CALLER).catch((error: unknown) => {
        this.logger.warn({ err: error, deliveryId: doc.id }, 'could not ask whether the package is served; asking again');
        return false;
      });
      if (served) return await this.record(doc.id, { type: 'ReleaseDelivery', now: new Date().toISOString() });
      await new Promise((resolve) => setTimeout(resolve, PUBLICATION_RECHECK_MS));
    } catch (error) {
      this.logger.error({ err: error, deliveryId: doc.id }, 'webhook delivery could not be released');
    } finally {
      this.awaiting.delete(doc.id);
    }
  }

  private async send(doc: WebhookDeliveryDocument): Promise<void> {
    try {
      const hook = await this.es.readModels.collection<WebhookDocument>(WEBHOOKS).get(doc.webhookId);
      if (!hook?.active) {
        const reason = hook ? 'the webhook is turned off' : 'the webhook was deleted';
        return await this.record(doc.id, { type: 'CancelDelivery', reason, now: new Date().toISOString() });
      }
      const secret = this.box.open(hook.sealedSecret, hook.id).toString('utf8');
      const outcome = await postWebhook(hook.url, doc.body, {
        timeoutMs: this.settings.timeoutMs,
        allowPrivateAddresses: this.settings.allowPrivateAddresses,
        headers: {
          'user-agent': WEBHOOK_USER_AGENT,
          'packyard-event': doc.event,
          'packyard-delivery': doc.id,
          [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(secret, Math.floor(Date.now() / 1000), doc.body),
        },
      });
      this.logger.info({ deliveryId: doc.id, webhookId: hook.id, event: doc.event, statusCode: outcome.statusCode, ms: outcome.durationMs, error: outcome.error || undefined }, 'webhook delivery attempted');
      await this.record(doc.id, { type: 'RecordAttempt', outcome, retry: this.settings, now: new Date().toISOString() });
    } catch (error) {
      this.logger.error({ err: error, deliveryId: doc.id }, 'webhook delivery failed to run');
    }
  }
}
