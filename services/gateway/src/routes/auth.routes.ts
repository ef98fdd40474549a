import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PackyardError } from '@packyard/platform';
import { IdentityServiceDefinition, type Session } from '@packyard/proto/packyard/identity/v1/identity';
import type { GatewayOptions } from '../app';
import { GATEWAY_CALLER } from '../gateway-caller';

const Credentials = Type.Object({ email: Type.String(), password: Type.String() });
const RefreshBody = Type.Object({ refreshToken: Type.String() });
const SessionResponse = Type.Object({
  idToken: Type.String(),
  refreshToken: Type.String(),
  expiresIn: Type.Integer({ description: 'seconds the ID token is valid' }),
  user: Type.Object({ id: Type.String(), email: Type.String() }),
});
const SignInOptions = Type.Object({
  google: Type.Boolean({ description: 'true when "Sign in with Google" (OpenID Connect) is configured' }),
  passwordReset: Type.Boolean({ description: 'true when password reset by e-mail is configured (SMTP_URL)' }),
});
const TwoFactorChallenge = Type.Object({
  twoFactorRequired: Type.Literal(true),
  challenge: Type.String({ description: 'for POST /api/v1/auth/login/two-factor, within 5 minutes' }),
});
const TwoFactorLogin = Type.Object({ challenge: Type.String(), code: Type.String({ description: 'a code from the authenticator app, or a recovery code' }) });
const ErrorResponse = Type.Object({ status: Type.Integer(), message: Type.String(), details: Type.Object({}, { additionalProperties: true }) });
const tags = ['auth'];

const CALLBACK_PATH = '/api/v1/auth/oidc/google/callback';
const DEFAULT_RETURN_TO = '/dashboard';

/** only a path of this origin: anything else would make sign-in an open redirect */
const localPath = (value: string | undefined) => (value && /^\/(?![/\\])/.test(value) ? value : DEFAULT_RETURN_TO);

/** what the session list shows of the device signing in */
const deviceOf = (request: FastifyRequest) => ({ clientIp: request.ip, userAgent: request.headers['user-agent'] ?? '' });

const toBody = (session: Session) => ({ idToken: session.idToken, refreshToken: session.refreshToken, expiresIn: session.expiresIn, user: session.user! });

/**
 * Sign-in, outside the bearer context (`/api/v1/auth/...`): registration, password
 * sign-in, refresh-token rotation, sign-out, and "Sign in with Google" (OpenID Connect).
 */
export async function authRoutes(parent: FastifyInstance, options: GatewayOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const identity = options.clients.client(IdentityServiceDefinition, 'identity');
  const call = { caller: GATEWAY_CALLER };
  const callbackUrl = (request: FastifyRequest) => `${request.protocol}://${request.host}${CALLBACK_PATH}`;
  // answers carrying credentials are never cached by a browser or a proxy
  app.addHook('onSend', async (_request, reply) => void reply.header('cache-control', 'no-store'));

  app.post(
    '/v1/auth/register',
    { schema: { tags, summary: 'Create an account with e-mail and password', body: Credentials, response: { 201: SessionResponse, 400: ErrorResponse, 409: ErrorResponse, 429: ErrorResponse } } },
    async (request, reply) => reply.code(201).send(toBody(await identity.register({ ...request.body, ...deviceOf(request) }, call))),
  );

  app.post(
    '/v1/auth/login',
    {
      schema: {
        tags,
        summary: 'Sign in with e-mail and password; an account with two-factor authentication answers a challenge for the second step',
        body: Credentials,
        response: { 200: Type.Union([SessionResponse, TwoFactorChallenge]), 401: ErrorResponse, 429: ErrorResponse },
      },
    },
    async (request) => {
      const session = await identity.login({ ...request.body, ...deviceOf(request) }, call);
      return session.twoFactorChallenge ? { twoFactorRequired: true as const, challenge: session.twoFactorChallenge } : toBody(session);
    },
  );

  app.post(
    '/v1/auth/login/two-factor',
    { schema: { tags, summary: 'The second step of a sign-in: a code from the authenticator app or a recovery code (each works once)', body: TwoFactorLogin, response: { 200: SessionResponse, 401: ErrorResponse } } },
    async (request) => toBody(await identity.completeTwoFactorLogin({ ...request.body, ...deviceOf(request) }, call)),
  );

  app.post(
    '/v1/auth/refresh',
    { schema: { tags, summary: 'Exchange a refresh token for a new session (the refresh token is spent)', body: RefreshBody, response: { 200: SessionResponse, 401: ErrorResponse } } },
    async (request) => toBody(await identity.refresh({ refreshToken: request.body.refreshToken, ...deviceOf(request) }, call)),
  );

  app.post(
    '/v1/auth/logout',
    { schema: { tags, summary: 'Sign out the session of a refresh token', body: RefreshBody, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await identity.logout({ refreshToken: request.body.refreshToken }, call);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/auth/password-reset',
    {
      schema: {
        tags,
        summary: 'E-mail a password reset link (single use, one hour) to the address, if it has an account; the answer is the same either way',
        body: Type.Object({ email: Type.String() }),
        response: { 202: Type.Object({ message: Type.String() }), 429: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      await identity.requestPasswordReset({ email: request.body.email, clientIp: request.ip, origin: `${request.protocol}://${request.host}` }, call);
      return reply.code(202).send({ message: 'If an account exists for this email, a link to reset its password is on its way.' });
    },
  );

  app.post(
    '/v1/auth/password-reset/confirm',
    {
      schema: {
        tags,
        summary: "Set a new password with a reset link's token; signs out every session",
        body: Type.Object({ token: Type.String(), newPassword: Type.String() }),
        response: { 204: Type.Null(), 400: ErrorResponse },
      },
    },
    async (request, reply) => {
      await identity.resetPassword({ token: request.body.token, newPassword: request.body.newPassword }, call);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/auth/options',
    { schema: { tags, summary: 'The sign-in methods this server offers, for the login page', response: { 200: SignInOptions } } },
    async () => identity.getSignInOptions({}, call),
  );

  app.get(
    '/v1/auth/oidc/google/start',
    {
      schema: {
        tags,
        summary: 'Start "Sign in with Google"; redirects to the provider, or back to /login with the reason when sign-in cannot start (e.g. not configured)',
        querystring: Type.Object({ returnTo: Type.Optional(Type.String()) }),
      },
    },
    async (request, reply) => {
      try {
        const { authorizationUrl } = await identity.startOidc(
          { provider: 'google', returnTo: localPath(request.query.returnTo), redirectUri: callbackUrl(request) },
          call,
        );
        return reply.redirect(authorizationUrl, 302);
      } catch (failure) {
        // a browser navigated here: it gets the login page with the reason, not a JSON error page
        if (!(failure instanceof PackyardError) || failure.kind !== 'UNAVAILABLE') throw failure;
        return reply.redirect(`/login?${new URLSearchParams({ error: failure.message })}`, 302);
      }
    },
  );

  app.get(
    '/v1/auth/oidc/google/callback',
    {
      schema: {
        tags,
        summary: 'Where the provider returns; redirects to the console with the session in the URL fragment',
        querystring: Type.Object({ code: Type.Optional(Type.String()), state: Type.Optional(Type.String()), error: Type.Optional(Type.String()) }),
      },
    },
    async (request, reply) => {
      const { code = '', state = '', error } = request.query;
      const fail = (message: string) => reply.redirect(`/login?${new URLSearchParams({ error: message })}`, 302);
      if (error) return fail(error === 'access_denied' ? 'Google sign-in was cancelled' : 'Google sign-in failed');
      try {
        const { session, returnTo } = await identity.finishOidc({ state, code, redirectUri: callbackUrl(request), ...deviceOf(request) }, call);
        const fragment = new URLSearchParams({ idToken: session!.idToken, refreshToken: session!.refreshToken, expiresIn: String(session!.expiresIn), returnTo });
        // the fragment never reaches a server; no-referrer keeps the code out of onward requests
        return reply.header('referrer-policy', 'no-referrer').redirect(`/login/callback#${fragment}`, 302);
      } catch (failure) {
        request.log.info({ err: failure }, 'Google sign-in failed');
        return fail(failure instanceof Error && failure.message ? failure.message : 'Google sign-in failed');
      }
    },
  );
}

/** `/.well-known/jwks.json`: the public keys ID tokens are signed with, for anyone verifying them */
export async function wellKnownRoutes(app: FastifyInstance, options: GatewayOptions) {
  const identity = options.clients.client(IdentityServiceDefinition, 'identity');
  app.get('/.well-known/jwks.json', { schema: { tags, summary: 'JSON Web Key Set of the ID token signing keys' } }, async (_request, reply) => {
    const { json } = await identity.getJwks({}, { caller: GATEWAY_CALLER });
    return reply.header('cache-control', 'public, max-age=300').type('application/json').send(json);
  });
}
