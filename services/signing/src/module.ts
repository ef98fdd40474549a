import { busModule, defineModule, grpcClientsModule, grpcServerModule, metricsModule, openModuleStores, startEventSourcing } from '@packyard/platform';
import { createSecretBox, loadOrCreateMasterKey } from '@packyard/platform/crypto/index';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { signingHandlers } from './grpc/signing.handlers';
import { KeyMaintenance } from './keys/key-maintenance';
import { KeyRing } from './keys/key-ring';
import { signingKeysProjection } from './projections/signing-keys.projection';
import { repositoryEventsReaction } from './reactions/repository-events.reaction';

const DAY_SECONDS = 24 * 3600;
const projections = [signingKeysProjection];

export const signingModule = defineModule({
  name: 'signing',
  description: 'OpenPGP keys per repository (rolled with an overlap, before they expire); signs Release/InRelease, repomd.xml and uploaded .rpm headers',
  deps: [grpcServerModule, grpcClientsModule, busModule, metricsModule],
  projections,
  init: async (ctx) => {
    const { config } = ctx;
    const stores = await openModuleStores(config, 'signing');
    const keys = new KeyRing(stores.events, createSecretBox(await loadOrCreateMasterKey(config.dataDir, config.masterKey)), {
      lifetimeSeconds: config.signingKeyLifetimeDays * DAY_SECONDS,
    });
    const es = await startEventSourcing({
      module: 'signing',
      stores,
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections,
      reactions: [repositoryEventsReaction(keys)],
    });
    const overlapSeconds = config.signingKeyOverlapDays * DAY_SECONDS;
    const maintenance = new KeyMaintenance(
      keys,
      stores.readModels,
      { rotateBeforeSeconds: config.signingKeyRotateBeforeDays * DAY_SECONDS, overlapSeconds, intervalMs: config.signingKeyCheckIntervalSeconds * 1000 },
      ctx.logger,
      ctx.use(metricsModule),
    );
    const repositories = ctx.use(grpcClientsModule).client(RepositoryServiceDefinition, 'repository');
    ctx.use(grpcServerModule).server.add(SigningServiceDefinition, signingHandlers(keys, repositories, {
        defaultOverlapSeconds: overlapSeconds,
        onRollFailure: (repositoryId, error) => ctx.logger.error({ err: error, repositoryId }, 'rolling the signing key failed'),
      }));
    return {
      value: undefined,
      start: () => maintenance.start(),
      drain: () => maintenance.stop(),
      stop: () => es.stop(),
    };
  },
});
