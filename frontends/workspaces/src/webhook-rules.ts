import type { BadgeTone } from '@packyard/console-kit';
import type { DeliveryStatus, WebhookDelivery } from './webhook-resources';

export const WEBHOOK_EVENTS = [
  { value: 'package.published', label: 'Package published', description: 'installable from the repository (the edge serves it)' },
  { value: 'package.deleted', label: 'Package deleted', description: 'by a user, retention, a promotion or a deleted repository' },
  { value: 'repository.created', label: 'Repository created', description: '' },
  { value: 'repository.deleted', label: 'Repository deleted', description: '' },
  { value: 'token.revoked', label: 'Token revoked', description: 'a repository token, or an account token of yours' },
] as const;

export const ALL_WEBHOOK_EVENTS: string[] = WEBHOOK_EVENTS.map((event) => event.value);

/** what the form says about a URL before the server is asked (it checks the same and more) */
export function webhookUrlProblem(url: string): string | undefined {
  const text = url.trim();
  if (!text) return 'URL is required';
  if (!/^https?:\/\//i.test(text)) return 'URL must start with http:// or https://';
  try {
    new URL(text);
  } catch {
    return 'URL is not a valid address';
  }
  return undefined;
}

export const eventLabel = (event: string) => (event === 'ping' ? 'Test ping' : (WEBHOOK_EVENTS.find((choice) => choice.value === event)?.label ?? event));

const STATUS: Record<DeliveryStatus, { label: string; tone: BadgeTone }> = {
  'awaiting-publication': { label: 'Waiting for publication', tone: 'purple' },
  pending: { label: 'Pending', tone: 'amber' },
  succeeded: { label: 'Delivered', tone: 'green' },
  failed: { label: 'Failed', tone: 'red' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};

export const deliveryStatus = (status: DeliveryStatus) => STATUS[status] ?? { label: status, tone: 'neutral' as const };

/** the receiver's answer in a few words: its status code, or why there was none */
export function deliveryResponse(delivery: Pick<WebhookDelivery, 'attempts' | 'lastStatusCode' | 'lastError' | 'cancelReason'>): string {
  if (delivery.cancelReason) return delivery.cancelReason;
  if (!delivery.attempts) return 'Not sent yet';
  if (delivery.lastStatusCode) return `HTTP ${delivery.lastStatusCode}`;
  return delivery.lastError || 'No answer';
}

/** redelivery is offered once a delivery has run its course */
export const canRedeliver = (status: DeliveryStatus) => status === 'succeeded' || status === 'failed' || status === 'cancelled';

export const webhookDeleteConfirmation = (url: string) => `Delete the webhook to ${url}? Its delivery log goes with it.`;
