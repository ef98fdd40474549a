import { describe, expect, it } from 'vitest';
import { canRedeliver, deliveryResponse, webhookUrlProblem } from './webhook-rules';

describe('webhook rules', () => {
  it('asks for an http(s) URL', () => {
    expect(webhookUrlProblem('')).toBe('URL is required');
    expect(webhookUrlProblem('ftp://example.com/hook')).toBe('URL must start with http:// or https://');
    expect(webhookUrlProblem('hooks.example.com')).toBe('URL must start with http:// or https://');
    expect(webhookUrlProblem('https://')).toBe('URL is not a valid address');
    expect(webhookUrlProblem(' https://ci.example.com/hook ')).toBeUndefined();
  });

  it("says how the receiver answered: its status, or why there was none", () => {
    expect(deliveryResponse({ attempts: 0, lastStatusCode: null, lastError: '', cancelReason: '' })).toBe('Not sent yet');
    expect(deliveryResponse({ attempts: 2, lastStatusCode: 500, lastError: 'HTTP 500', cancelReason: '' })).toBe('HTTP 500');
    expect(deliveryResponse({ attempts: 1, lastStatusCode: null, lastError: 'connect ECONNREFUSED 127.0.0.1:9', cancelReason: '' })).toBe('connect ECONNREFUSED 127.0.0.1:9');
    expect(deliveryResponse({ attempts: 0, lastStatusCode: null, lastError: '', cancelReason: 'the webhook is turned off' })).toBe('the webhook is turned off');
  });

  it('offers redelivery once a delivery is done, not while it is under way', () => {
    expect(canRedeliver('failed')).toBe(true);
    expect(canRedeliver('succeeded')).toBe(true);
    expect(canRedeliver('pending')).toBe(false);
    expect(canRedeliver('awaiting-publication')).toBe(false);
  });
});
