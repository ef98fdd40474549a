import { createHmac, randomBytes } from 'node:crypto';

/** recognisable, like tokens, so a leaked secret is easy to spot */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const newWebhookSecret = () => `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;

export const SIGNATURE_HEADER = 'Packyard-Signature';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the time is signed with the
 * body, so a receiver can refuse an old message replayed to it (Stripe's scheme). The key is
 * the secret exactly as shown at creation (its UTF-8 bytes, prefix included).
 */
export function signatureHeader(secret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${digest}`;
}
