import { busModule, defineModule, defineSettings, grpcServerModule, httpServerModule, integer, metricsModule, openModuleStores, PUBLIC_URL_SETTING, startEventSourcing, text } from '@packyard/platform';
import { createSecretBox, loadOrCreateMasterKey } from '@packyard/platform/crypto/index';
import { IdentityServiceDefinition } from '@packyard/proto/packyard/identity/v1/identity';
import { createAccounts } from './accounts';
import { createSmtpMailer } from './adapters/mailer';
import { identityHandlers } from './grpc/identity.handlers';
import { loadIdTokenSigner } from './keys/id-token.signer';
import { identityMetrics } from './metrics';
import { OidcClient } from './oidc/oidc.client';
import { userTokensProjection } from './projections/user-tokens.projection';
import { RefreshTokenStore } from './sessions/refresh-token.store';

export const IDENTITY_SETTINGS = defineSettings({
  loginFailuresBeforeDelay: integer('LOGIN_FAILURES_BEFORE_DELAY', 5, 'failed sign-ins of an account from one client address before each further attempt from there must wait (1 s, doubling; 429 with Retry-After); other addresses are not held up', 1),
  loginMaxDelaySeconds: integer('LOGIN_MAX_DELAY_S', 60, 'the longest wait between sign-in attempts of an account from one client address', 1),
  loginFailureWindowSeconds: integer('LOGIN_FAILURE_WINDOW_S', 900, 'how long failed sign-ins of an account from a client address are remembered', 1),
  authAttemptsPerIp: integer('AUTH_ATTEMPTS_PER_IP', 300, 'sign-in and registration attempts per client IP per minute (an office behind one NAT stays far below)', 1),
  oidcIssuer: text('OIDC_ISSUER', 'https://accounts.google.com', 'OpenID Connect issuer for "Sign in with Google"'),
  oidcClientId: text('OIDC_CLIENT_ID', undefined, 'OpenID Connect client id (Google sign-in is off until set)'),
  oidcClientSecret: text('OIDC_CLIENT_SECRET', undefined, 'OpenID Connect client secret'),
  smtpUrl: text('SMTP_URL', undefined, 'SMTP server for password-reset e-mails, e.g. smtps://user:password@mail.example.com:465 ("Forgot password?" is off until set)'),
  mailFrom: text('MAIL_FROM', 'Packyard <no-reply@localhost>', 'sender address of the e-mails Packyard sends'),
  publicUrl: PUBLIC_URL_SETTING,
});

export const identityModule = defineModule({
  name: 'identity',
  description: 'accounts, sign-in (password and OpenID Connect), ID tokens and JWKS, profile and user API keys',
  deps: [grpcServerModule, httpServerModule, busModule, metricsModule],
  settings: IDENTITY_SETTINGS,
  projections: [userTokensProjection],
  init: async (ctx) => {
    const { config } = ctx;
    const settings = ctx.settings(IDENTITY_SETTINGS);
    const es = await startEventSourcing({
      module: 'identity',
      stores: await openModuleStores(config, 'identity'),
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections: [userTokensProjection],
      fail: ctx.fail,
    });
    ctx.use(httpServerModule).addReadinessCheck('identity', es.ready);
    const secrets = createSecretBox(await loadOrCreateMasterKey(config.dataDir, config.masterKey));
    const accounts = createAccounts({
      es,
      secrets,
      mailer: settings.smtpUrl ? createSmtpMailer(settings.smtpUrl, settings.mailFrom) : undefined,
      publicUrl: settings.publicUrl,
      signer: await loadIdTokenSigner(es.events, secrets),
      refreshTokens: new RefreshTokenStore(es.readModels),
      oidc: new OidcClient({ issuer: settings.oidcIssuer, clientId: settings.oidcClientId, clientSecret: settings.oidcClientSecret }, es.readModels),
      limits: settings,
    });
    ctx.use(grpcServerModule).server.add(IdentityServiceDefinition, identityHandlers(accounts, identityMetrics(ctx.use(metricsModule))));
    return { value: undefined, stop: () => es.stop() };
  },
});
