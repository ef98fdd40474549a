import { assertNever, invalid, notFound, type Decider } from '@packyard/platform';
import { WEBHOOK_EVENTS, type WebhookEvent } from './webhook.events';

export type Webhook = { status: 'none' } | { status: 'active' | 'deleted'; webhookId: string; workspaceId: string };

export type WebhookCommand =
  | { type: 'CreateWebhook'; webhookId: string; workspaceId: string; ownerId: string; url: string; events: string[]; active: boolean; sealedSecret: string; now: string }
  | { type: 'UpdateWebhook'; url: string; events: string[]; active: boolean; now: string }
  | { type: 'DeleteWebhook'; now: string };

export const URL_MAX_LENGTH = 2000;

/** the URL as it will be called: http or https, no credentials in it (the signature authenticates) */
export function checkWebhookUrl(raw: string): string {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('PACKYARD_WEBHOOK_INVALID_URL', 'URL must be an absolute http:// or https:// address', { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('PACKYARD_WEBHOOK_INVALID_URL', 'URL must start with http:// or https://', { field: 'url' });
  if (url.username || url.password) throw invalid('PACKYARD_WEBHOOK_INVALID_URL', 'URL must not contain a user name or password', { field: 'url' });
  if (text.length > URL_MAX_LENGTH) throw invalid('PACKYARD_WEBHOOK_INVALID_URL', `URL must be at most ${URL_MAX_LENGTH} characters`, { field: 'url' });
  return url.href;
}

export function checkWebhookEvents(events: string[]): string[] {
  const unknown = events.filter((event) => !(WEBHOOK_EVENTS as readonly string[]).includes(event));
  if (unknown.length) throw invalid('PACKYARD_WEBHOOK_UNKNOWN_EVENT', `Unknown event ${unknown.join(', ')}: choose from ${WEBHOOK_EVENTS.join(', ')}`, { field: 'events' });
  if (!events.length) throw invalid('PACKYARD_WEBHOOK_NO_EVENTS', 'Choose at least one event', { field: 'events' });
  return WEBHOOK_EVENTS.filter((event) => events.includes(event));
}

const gone = () => notFound('PACKYARD_WEBHOOK_NOT_FOUND', 'Webhook not found');

/** A workspace's webhook: where events go, which ones, and whether it is on. */
export const webhookDecider: Decider<Webhook, WebhookCommand, WebhookEvent> = {
  initialState: () => ({ status: 'none' }),

  decide(command, state) {
    switch (command.type) {
      case 'CreateWebhook':
        if (state.status !== 'none') throw gone();
        return [
          {
            type: 'WebhookCreated',
            data: {
              webhookId: command.webhookId,
              workspaceId: command.workspaceId,
              ownerId: command.ownerId,
              url: checkWebhookUrl(command.url),
              events: checkWebhookEvents(command.events),
              active: command.active,
              sealedSecret: command.sealedSecret,
              createdAt: command.now,
            },
          },
        ];
      case 'UpdateWebhook':
        if (state.status !== 'active') throw gone();
        return [
          {
            type: 'WebhookUpdated',
            data: { webhookId: state.webhookId, url: checkWebhookUrl(command.url), events: checkWebhookEvents(command.events), active: command.active, updatedAt: command.now },
          },
        ];
      case 'DeleteWebhook':
        if (state.status !== 'active') throw gone();
        return [{ type: 'WebhookDeleted', data: { webhookId: state.webhookId, workspaceId: state.workspaceId, deletedAt: command.now } }];
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WebhookCreated':
        return { status: 'active', webhookId: event.data.webhookId, workspaceId: event.data.workspaceId };
      case 'WebhookUpdated':
        return state;
      case 'WebhookDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
      default:
        return assertNever(event);
    }
  },
};
