import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, type Caller } from '@packyard/platform';
import type { Authenticate } from './authenticator';

export type Scope = 'read' | 'publish' | 'admin';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** the scope an account access token needs; GET routes default to `read` */
    scope?: Scope;
  }
}

/**
 * Bearer authentication for its encapsulated context (`/api/v1`): every route inside
 * needs an ID token or an account access token within the route's scope. Routes
 * registered outside this context (auth, health, the apt/yum edge) are untouched.
 */
export async function bearerAuth(app: FastifyInstance, options: { authenticate: Authenticate }) {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    // the client address travels with the caller into every event the call causes (the audit log's "from where")
    request.caller = { ...(await options.authenticate(request.headers.authorization)), address: request.ip };
    const needed: Scope = request.routeOptions.config.scope ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'admin');
    if (request.caller.kind === 'access_token') {
      if (!request.caller.scopes.includes(needed)) throw forbidden(`This token lacks the "${needed}" scope`);
    }
  });
}
