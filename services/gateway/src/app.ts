import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { notFound, type GrpcClients } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import { createAuthenticator } from './auth/authenticator';
import { bearerAuth } from './auth/bearer-auth.plugin';
import { consolePlugin } from './console/console.plugin';
import { API_ROUTES, PUBLIC_API_ROUTES, ROOT_ROUTES } from './routes';
import { securityHeaders } from './security-headers';

/** the API reference (Swagger UI over the OpenAPI document); the console links to it */
export const API_REFERENCE_PATH = '/api/docs';

export interface GatewayOptions {
  clients: GrpcClients;
  /** uploads are staged here until artifact claims them */
  blobs: BlobStore;
  frontendsDir: string;
  maxUploadBytes: number;
}

/**
 * The gateway as a fastify plugin (fastify/demo's app-as-plugin): tier 1 the OpenAPI
 * document and its reference page, tier 2 public API routes (auth, install scripts), tier 3 `/api/v1` behind
 * bearer auth in its own encapsulated context, then the console.
 */
export async function gatewayApp(app: FastifyInstance, options: GatewayOptions) {
  securityHeaders(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Packyard API', version: '1.0.0', description: 'Private APT and YUM/DNF repositories as a service' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT or account access token' } } },
    },
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // the reference a person reads, from the same document; its files are served from here
  // (no CDN) and the online validator badge, which would send the document away, is off
  await app.register(swaggerUi, { routePrefix: API_REFERENCE_PATH, uiConfig: { validatorUrl: null, deepLinking: true }, theme: { title: 'Packyard API reference' }, staticCSP: true });

  for (const routes of ROOT_ROUTES) await app.register(routes, options);
  for (const routes of PUBLIC_API_ROUTES) await app.register(routes, { prefix: '/api', ...options });

  const authenticate = createAuthenticator(options.clients);
  await app.register(async (v1) => {
    // called, not registered: its hook must cover this whole context, not a child of it
    await bearerAuth(v1, { authenticate });
    // the console sends `Content-Type: application/json` on every call (spec §7), DELETEs
    // without a body included: an empty JSON body is no body, not a 400
    const parseJson = v1.getDefaultJsonParser('error', 'error');
    v1.removeContentTypeParser('application/json');
    v1.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
      body === '' ? done(null, undefined) : parseJson(request, body as string, done),
    );
    for (const routes of API_ROUTES) await v1.register(routes, options);
    // unknown paths answer only after authentication, so they reveal nothing to strangers
    v1.all('/*', { schema: { hide: true } }, async (request) => {
      throw notFound('PACKYARD_API_NO_ROUTE', `No route for ${request.method} ${request.url.split('?')[0]}`);
    });
  }, { prefix: '/api/v1' });

  await app.register(consolePlugin, { frontendsDir: options.frontendsDir });
}
