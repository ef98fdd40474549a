import { busModule, defineModule, handleCommand, grpcClientsModule, grpcServerModule, httpServerModule, openModuleStores, startEventSourcing, startProjectionWhere, type TokenHashDocument } from '@packyard/platform';
import { createSecretBox, loadOrCreateMasterKey } from '@packyard/platform/crypto/index';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { TokenServiceDefinition } from '@packyard/proto/packyard/token/v1/token';
import { tokenHandlers } from './grpc/token.handlers';
import { SUSPENDED_REPOSITORIES, TOKEN_HASHES, tokenHashesProjection } from './projections/token-hashes.projection';
import { tokensProjection } from './projections/tokens.projection';
import { accessTokenRevokedReaction } from './reactions/access-token-revoked.reaction';
import { filesServedReaction } from './reactions/files-served.reaction';
import { repositoryEventsReaction } from './reactions/repository-events.reaction';
import { userDeletedReaction } from './reactions/user-deleted.reaction';
import { accessTokenDecider } from './tokens/access-token.decider';
import { createTokenValidator } from './tokens/token-validator';
import { accessTokenStream, integrationData, isIntegration } from './tokens/token.events';

const projections = [tokenHashesProjection, tokensProjection];

export const tokenModule = defineModule({
  name: 'token',
  description: 'repository tokens and account access tokens; validates tokens for the API and delivery',
  deps: [grpcServerModule, grpcClientsModule, httpServerModule, busModule],
  projections,
  init: async (ctx) => {
    const box = createSecretBox(await loadOrCreateMasterKey(ctx.config.dataDir, ctx.config.masterKey));
    const stores = await openModuleStores(ctx.config, 'token');
    // until token-hashes existed, the tokens projection kept its collections
    await startProjectionWhere(stores.readModels, tokenHashesProjection.name, tokensProjection.name);
    const es = await startEventSourcing({
      module: 'token',
      stores,
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections,
      reactions: [
        repositoryEventsReaction(stores.events, stores.readModels),
        accessTokenRevokedReaction(stores.events, stores.readModels),
        userDeletedReaction(stores.events, stores.readModels),
        filesServedReaction(stores.events),
      ],
      integrationData,
      fail: ctx.fail,
    });
    ctx.use(httpServerModule).addReadinessCheck('token', es.ready);
    const validator = createTokenValidator(stores.readModels.collection<TokenHashDocument>(TOKEN_HASHES), async (tokenId) => {
      await handleCommand(stores.events, accessTokenStream(tokenId), accessTokenDecider, { type: 'RecordAccessTokenUse', tokenId, now: new Date().toISOString() }, { isIntegration });
    });
    const revocations = await validator.followLog(stores.events, stores.readModels.collection(SUSPENDED_REPOSITORIES), (position) =>
      es.caughtUp(position, 60_000, [tokenHashesProjection]),
    );
    const repositories = ctx.use(grpcClientsModule).client(RepositoryServiceDefinition, 'repository');
    ctx.use(grpcServerModule).server.add(TokenServiceDefinition, tokenHandlers(es, box, validator, repositories));
    return {
      value: undefined,
      stop: async () => {
        await revocations.stop();
        await es.stop();
      },
    };
  },
});
