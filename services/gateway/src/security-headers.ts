import type { FastifyInstance } from 'fastify';

/**
 * What a browser needs told about the console and the API: no framing (the console has
 * delete buttons to be clickjacked over), no inline or foreign code (every script and style
 * is a file of this origin, so no 'unsafe-inline'), no MIME sniffing, a referrer that keeps
 * paths to this origin, and HSTS once served over TLS. The apt/yum edge is not a page and
 * is served outside the gateway, so none of it reaches apt or dnf.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

/** adds the headers to every answer of the context it is called in */
export function securityHeaders(app: FastifyInstance) {
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(HEADERS);
    // request.protocol follows X-Forwarded-Proto only when TRUST_PROXY says a proxy sets it
    if (request.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
  });
}
