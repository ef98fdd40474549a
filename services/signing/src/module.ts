import { busModule, defineModule, grpcServerModule, httpServerModule, openModuleStores, startEventSourcing } from '@packyard/platform';
import { createSecretBox, loadOrCreateMasterKey } from '@packyard/platform/crypto/index';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { signingHandlers } from './grpc/signing.handlers';
import { KeyRing } from './keys/key-ring';
import { repositoryEventsReaction } from './reactions/repository-events.reaction';

export const signingModule = defineModule({
  name: 'signing',
  description: 'one OpenPGP key per repository; signs Release/InRelease and repomd.xml',
  deps: [grpcServerModule, httpServerModule, busModule],
  init: async (ctx) => {
    const stores = await openModuleStores(ctx.config, 'signing');
    const keys = new KeyRing(stores.events, createSecretBox(await loadOrCreateMasterKey(ctx.config.dataDir, ctx.config.masterKey)));
    const es = await startEventSourcing({
      module: 'signing',
      stores,
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections: [],
      reactions: [repositoryEventsReaction(keys)],
      fail: ctx.fail,
    });
    ctx.use(httpServerModule).addReadinessCheck('signing', es.ready);
    ctx.use(grpcServerModule).server.add(SigningServiceDefinition, signingHandlers(keys));
    return { value: undefined, stop: () => es.stop() };
  },
});
