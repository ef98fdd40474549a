import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { webhookDecider, type WebhookCommand } from './webhook.decider';
import type { WebhookEvent } from './webhook.events';

const now = '2026-01-02T03:04:05.000Z';
const spec = deciderSpec(webhookDecider);
const create = (overrides: Partial<Extract<WebhookCommand, { type: 'CreateWebhook' }>> = {}): WebhookCommand => ({
  type: 'CreateWebhook',
  webhookId: 'w-1',
  workspaceId: 'ws-1',
  ownerId: 'u-1',
  url: 'https://ci.example.com/hook',
  events: ['token.revoked', 'package.published'],
  active: true,
  sealedSecret: 'v1.sealed',
  now,
  ...overrides,
});
const created: WebhookEvent = {
  type: 'WebhookCreated',
  data: { webhookId: 'w-1', workspaceId: 'ws-1', ownerId: 'u-1', url: 'https://ci.example.com/hook', events: ['package.published', 'token.revoked'], active: true, sealedSecret: 'v1.sealed', createdAt: now },
};

describe('webhook decider', () => {
  it('creates a webhook, its events in their documented order', () => spec.given([]).when(create()).then([created]));

  it('refuses URLs that are not http(s), carry credentials or are not URLs, and unknown or no events (400)', () => {
    spec.given([]).when(create({ url: 'file:///etc/passwd' })).thenThrows('URL must start with http:// or https://');
    spec.given([]).when(create({ url: 'https://user:pw@example.com/' })).thenThrows('URL must not contain a user name or password');
    spec.given([]).when(create({ url: 'example.com/hook' })).thenThrows('URL must be an absolute http:// or https:// address');
    spec.given([]).when(create({ events: ['package.exploded'] })).thenThrows(/^Unknown event package.exploded/);
    spec.given([]).when(create({ events: [] })).thenThrows('Choose at least one event');
  });

  it('updates and deletes a webhook; a deleted one is not found', () => {
    spec
      .given([created])
      .when({ type: 'UpdateWebhook', url: 'http://ci.example.com/other', events: ['repository.deleted'], active: false, now })
      .then([{ type: 'WebhookUpdated', data: { webhookId: 'w-1', url: 'http://ci.example.com/other', events: ['repository.deleted'], active: false, updatedAt: now } }]);
    const deleted: WebhookEvent = { type: 'WebhookDeleted', data: { webhookId: 'w-1', workspaceId: 'ws-1', deletedAt: now } };
    spec.given([created]).when({ type: 'DeleteWebhook', now }).then([deleted]);
    spec.given([created, deleted]).when({ type: 'DeleteWebhook', now }).thenThrows('Webhook not found');
  });
});
