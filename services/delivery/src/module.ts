import { hostname } from 'node:os';
import {
  boolean,
  BUS_SETTINGS,
  busModule,
  defineModule,
  defineSettings,
  grpcClientsModule,
  grpcServerModule,
  httpServerModule,
  metricsModule,
  openModuleStores,
  PUBLIC_URL_SETTING,
  recordInbox,
  startEventSourcing,
  text,
  topicOf,
  type BusMessage,
  type Reaction,
} from '@packyard/platform';
import { blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { DeliveryServiceDefinition } from '@packyard/proto/packyard/delivery/v1/delivery';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { TokenServiceDefinition } from '@packyard/proto/packyard/token/v1/token';
import { PackageIds } from './accounting/package-ids';
import { TrafficAccounting } from './accounting/traffic-accounting';
import { VerdictCache } from './auth/token-verdicts';
import { deliveryProjection, FOLLOWED_EVENTS, PACKAGES, PUBLIC_KEYS, type CatalogChange, type PackageRecord, type PublicKeysRecord } from './catalog/delivery.projection';
import { PublishedCatalog } from './catalog/published-catalog';
import { deliveryEdge } from './edge/delivery-edge';
import { EdgeMetrics } from './edge/edge-metrics';
import { PackageBodyCache } from './edge/package-body-cache';
import { deliveryHandlers } from './grpc/delivery.handlers';
import { PublicKeys } from './keys/public-keys';
import { DELIVERY_CALLER } from './delivery-caller';

const inboxReactions = (module: { events: Parameters<typeof recordInbox>[0] }): Reaction[] =>
  Object.entries(FOLLOWED_EVENTS).map(([context, types]) => ({
    contexts: [context],
    async handle(message: BusMessage) {
      if (Object.hasOwn(types, message.type)) await recordInbox(module.events, context, message);
    },
  }));

// Revocations reach the verdicts by event (under a second); the TTL only bounds a lost one.
const VERDICT_TTL_MS = 60_000;
const REVOCATIONS = new Set(['RepoTokenRevoked', 'AccessTokenRevoked']);
const NEGATIVE_VERDICT_TTL_MS = 2_000;
const FLUSH_INTERVAL_MS = 1_000;
// files up to 4 MiB (packages, and the indices: the catalogue holds no bodies) stay in
// memory after their first request, 256 MiB in all
const PACKAGE_CACHE_FILE_BYTES = 4 * 1024 * 1024;
const PACKAGE_CACHE_TOTAL_BYTES = 256 * 1024 * 1024;
// which package a downloaded file is: looked up in the read model, the answers kept
const CACHED_PACKAGE_IDS = 100_000;

export const DELIVERY_SETTINGS = defineSettings({
  publicUrl: PUBLIC_URL_SETTING,
  s3PresignDownloads: boolean('S3_PRESIGN_DOWNLOADS', false, 'redirect package downloads to short-lived presigned URLs (BLOBS=s3)'),
  replicaId: text('DELIVERY_REPLICA_ID', undefined, 'names this delivery replica: with BUS=kafka each replica follows every event in its own consumer group, delivery-<id> (default: the host name, a pod\'s name in Kubernetes)'),
});

/**
 * Every delivery replica serves every repository, so each keeps its own read model of
 * every event: replicas must not share a consumer group (that would split the
 * partitions between them). The embedded bus has one process only and keeps its group.
 */
const consumerGroupOf = (replicaId: string | undefined, kafka: boolean) => (kafka ? `delivery-${replicaId ?? hostname()}` : 'delivery');

export const deliveryModule = defineModule({
  name: 'delivery',
  description: 'the apt/yum edge: repository files over HTTP with token auth, install snippets and scripts',
  deps: [grpcServerModule, grpcClientsModule, httpServerModule, busModule, metricsModule, blobStoreModule],
  settings: DELIVERY_SETTINGS,
  projections: [deliveryProjection()],
  init: async (ctx) => {
    const { config } = ctx;
    const settings = ctx.settings(DELIVERY_SETTINGS);
    const bus = ctx.use(busModule);
    const clients = ctx.use(grpcClientsModule);
    const blobs = ctx.use(blobStoreModule);
    const stores = await openModuleStores(config, 'delivery');
    // nothing is read at start: repositories load when first asked for, package ids when first counted
    const catalog = new PublishedCatalog(stores.readModels, blobs);
    const packageIds = new PackageIds(stores.readModels.collection<PackageRecord>(PACKAGES), CACHED_PACKAGE_IDS);

    const publicKeys = new PublicKeys(
      async (repositoryId) => (await stores.readModels.collection<PublicKeysRecord>(PUBLIC_KEYS).get(repositoryId))?.armored,
      async (repositoryId) => {
        const key = await clients.client(SigningServiceDefinition, 'signing').getPublicKey({ repositoryId }, { caller: DELIVERY_CALLER });
        return { armored: key.armored, binary: key.binary };
      },
    );
    const onChange = async (change: CatalogChange) => {
      if (change.kind === 'package') return packageIds.forget(change.record.id);
      if (change.kind === 'keys') return publicKeys.forget(change.repositoryId);
      publicKeys.forget(change.repositoryId);
      await catalog.refresh(change.repositoryId);
    };
    const es = await startEventSourcing({
      module: 'delivery',
      stores,
      bus,
      logger: ctx.logger,
      projections: [deliveryProjection(onChange)],
      reactions: inboxReactions(stores),
      consumerGroup: consumerGroupOf(settings.replicaId, ctx.settings(BUS_SETTINGS).bus === 'kafka'),
      fail: ctx.fail,
    });

    const tokens = clients.client(TokenServiceDefinition, 'token');
    const verdicts = new VerdictCache(
      async (token) => {
        const answer = await tokens.validateToken({ token, repositoryId: '' }, { caller: DELIVERY_CALLER });
        return { valid: answer.valid, kind: answer.kind, tokenId: answer.tokenId, ownerId: answer.ownerId, scopes: answer.scopes, repositoryId: answer.repositoryId };
      },
      { ttlMs: VERDICT_TTL_MS, negativeTtlMs: NEGATIVE_VERDICT_TTL_MS, maxEntries: 100_000 },
    );
    // every replica must hear every revocation: a group of its own per replica (a new replica
    // reads the token topic from its start, which is cheap)
    const revocations = await bus.subscribe({ group: `delivery-verdicts-${settings.replicaId ?? hostname()}`, topics: [topicOf('token')] }, async (message) => {
      if (REVOCATIONS.has(message.type)) verdicts.revoke((message.data as { tokenId: string }).tokenId);
    });
    const accounting = new TrafficAccounting((repositoryId, sha256) => packageIds.of(repositoryId, sha256));
    const http = ctx.use(httpServerModule);
    http.addReadinessCheck('delivery', es.ready);
    http.addEdgeHandler(
      deliveryEdge({
        catalog,
        verdicts,
        accounting,
        blobs,
        publicKeys,
        metrics: new EdgeMetrics(ctx.use(metricsModule)),
        packageBodies: new PackageBodyCache((key) => blobs.get(key), PACKAGE_CACHE_FILE_BYTES, PACKAGE_CACHE_TOTAL_BYTES),
        logger: ctx.logger,
        presignDownloads: settings.s3PresignDownloads,
      }),
    );
    ctx.use(grpcServerModule).server.add(DeliveryServiceDefinition, deliveryHandlers(clients.client(RepositoryServiceDefinition, 'repository'), catalog, settings.publicUrl));

    // traffic leaves in batches, off the request path, through the outbox like every other
    // event: appended to delivery's own store (one stream per repository), then relayed to
    // the bus, so a bus that is down delays the counts instead of losing them
    const flush = async () => {
      const messages = await accounting.drain();
      const byRepository = new Map<string, BusMessage[]>();
      for (const message of messages) byRepository.set(message.key, [...(byRepository.get(message.key) ?? []), message]);
      for (const [repositoryId, batch] of byRepository) {
        await stores.events.append(
          `traffic-${repositoryId}`,
          'ANY',
          batch.map(({ id, type, data }) => ({ id, type, data, integration: true })),
        );
      }
    };
    let flushing = Promise.resolve();
    const timer = setInterval(() => {
      flushing = flushing.then(flush).catch((error: unknown) => ctx.logger.error({ err: error }, 'recording delivery traffic failed'));
    }, FLUSH_INTERVAL_MS);
    timer.unref();

    return {
      value: undefined,
      stop: async () => {
        clearInterval(timer);
        await revocations.stop();
        await flushing;
        await flush();
        await es.stop();
      },
    };
  },
});
