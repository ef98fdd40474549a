import { busModule, defineModule, grpcServerModule, metricsModule, openModuleStores, startEventSourcing } from '@packyard/platform';
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

export const identityModule = defineModule({
  name: 'identity',
  description: 'accounts, sign-in (password and OpenID Connect), ID tokens and JWKS, profile and user API keys',
  deps: [grpcServerModule, busModule, metricsModule],
  projections: [userTokensProjection],
  init: async (ctx) => {
    const { config } = ctx;
    const es = await startEventSourcing({
      module: 'identity',
      stores: await openModuleStores(config, 'identity'),
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections: [userTokensProjection],
    });
    const secrets = createSecretBox(await loadOrCreateMasterKey(config.dataDir, config.masterKey));
    const accounts = createAccounts({
      es,
      secrets,
      mailer: config.smtpUrl ? createSmtpMailer(config.smtpUrl, config.mailFrom) : undefined,
      publicUrl: config.publicUrl,
      signer: await loadIdTokenSigner(es.events, secrets),
      refreshTokens: new RefreshTokenStore(es.readModels),
      oidc: new OidcClient({ issuer: config.oidcIssuer, clientId: config.oidcClientId, clientSecret: config.oidcClientSecret }, es.readModels),
      limits: config,
    });
    ctx.use(grpcServerModule).server.add(IdentityServiceDefinition, identityHandlers(accounts, identityMetrics(ctx.use(metricsModule))));
    return { value: undefined, stop: () => es.stop() };
  },
});
