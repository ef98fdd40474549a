import { availableParallelism } from 'node:os';
import { busModule, defineModule, defineSettings, grpcClientsModule, grpcServerModule, httpServerModule, integer, metricsModule, openModuleStores, startEventSourcing } from '@packyard/platform';
import { createSecretBox, loadOrCreateMasterKey } from '@packyard/platform/crypto/index';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { signingHandlers } from './grpc/signing.handlers';
import { KeyMaintenance } from './keys/key-maintenance';
import { KeyGenerations } from './keys/key-generations';
import { KeyRing } from './keys/key-ring';
import { signingKeysProjection } from './projections/signing-keys.projection';
import { repositoryEventsReaction } from './reactions/repository-events.reaction';

const DAY_SECONDS = 24 * 3600;
const projections = [signingKeysProjection];

export const SIGNING_SETTINGS = defineSettings({
  signingKeyLifetimeDays: integer('SIGNING_KEY_LIFETIME_DAYS', 730, 'how long a new repository signing key is used before it is rolled (recorded with the key; not an OpenPGP expiry, which rpm 4.18 and older cannot import)', 1),
  signingKeyRotateBeforeDays: integer('SIGNING_KEY_ROTATE_BEFORE_DAYS', 30, 'a repository key this close to its expiry is rolled automatically (keys within twice this show as near expiry)', 1),
  signingKeyOverlapDays: integer('SIGNING_KEY_OVERLAP_DAYS', 14, 'after a key roll, how long the old key keeps signing beside the new one (when the roll names no overlap)', 0, 90),
  signingKeyCheckIntervalSeconds: integer('SIGNING_KEY_CHECK_INTERVAL_S', 60, 'how often the signing module ends overlaps that are over and rolls keys near expiry', 1),
});

export const signingModule = defineModule({
  name: 'signing',
  description: 'OpenPGP keys per repository (rolled with an overlap, before they expire); signs Release/InRelease, repomd.xml and uploaded .rpm headers',
  deps: [grpcServerModule, grpcClientsModule, httpServerModule, busModule, metricsModule],
  settings: SIGNING_SETTINGS,
  projections,
  init: async (ctx) => {
    const { config } = ctx;
    const settings = ctx.settings(SIGNING_SETTINGS);
    const stores = await openModuleStores(config, 'signing');
    const keys = new KeyRing(stores.events, createSecretBox(await loadOrCreateMasterKey(config.dataDir, config.masterKey)), {
      lifetimeSeconds: settings.signingKeyLifetimeDays * DAY_SECONDS,
    });
    // one RSA generation per core (each runs on libuv's thread pool)
    const generations = new KeyGenerations(availableParallelism());
    const es = await startEventSourcing({
      module: 'signing',
      stores,
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections,
      reactions: [repositoryEventsReaction(keys, generations, ctx.logger)],
      fail: ctx.fail,
    });
    ctx.use(httpServerModule).addReadinessCheck('signing', es.ready);
    const overlapSeconds = settings.signingKeyOverlapDays * DAY_SECONDS;
    const maintenance = new KeyMaintenance(
      keys,
      stores.readModels,
      { rotateBeforeSeconds: settings.signingKeyRotateBeforeDays * DAY_SECONDS, overlapSeconds, intervalMs: settings.signingKeyCheckIntervalSeconds * 1000 },
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
      drain: async () => {
        await maintenance.stop();
        // a key half made would be lost with the stores: the ones under way finish first
        await generations.close();
      },
      stop: () => es.stop(),
    };
  },
});
