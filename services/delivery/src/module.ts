import { hostname } from 'node:os';
import {
  busModule,
  defineModule,
  grpcClientsModule,
  grpcServerModule,
  httpServerModule,
  metricsModule,
  openModuleStores,
  recordInbox,
  startEventSourcing,
  SYSTEM_CALLER,
  topicOf,
  type BusMessage,
  type Reaction,
} from '@packyard/platform';
import { blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { DeliveryServiceDefinition } from '@packyard/proto/packyard/delivery/v1/delivery';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { TokenServiceDefinition } from '@packyard/proto/packyard/token/v1/token';
import { TrafficAccounting } from './accounting/traffic-accounting';
import { VerdictCache } from './auth/token-verdicts';
import { deliveryProjection, PACKAGES, packageRecordId, type CatalogChange, type PackageRecord } from './catalog/delivery.projection';
import { PublishedCatalog } from './catalog/published-catalog';
import { deliveryEdge } from './edge/delivery-edge';
import { EdgeMetrics } from './edge/edge-metrics';
import { PackageBodyCache } from './edge/package-body-cache';
import { deliveryHandlers } from './grpc/delivery.handlers';
import { PublicKeys } from './keys/public-keys';

/** the other modules' events delivery's read model is projected from */
const FOLLOWED: Record<string, string[]> = {
  repository: ['RepositoryCreated', 'RepositoryDeleted', 'IndexPublished'],
  artifact: ['PackageUploaded', 'PackageDeleted'],
};

const inboxReactions = (module: { events: Parameters<typeof recordInbox>[0] }): Reaction[] =>
  Object.entries(FOLLOWED).map(([context, types]) => ({
    contexts: [context],
    async handle(message: BusMessage) {
      if (types.includes(message.type)) await recordInbox(module.events, context, message);
    },
  }));

// Revocations reach the verdicts by event (under a second); the TTL only bounds a lost one.
const VERDICT_TTL_MS = 60_000;
const REVOCATIONS = new Set(['RepoTokenRevoked', 'AccessTokenRevoked']);
const NEGATIVE_VERDICT_TTL_MS = 2_000;
const FLUSH_INTERVAL_MS = 1_000;
// packages up to 1 MiB stay in memory after their first download, 256 MiB in all
const PACKAGE_CACHE_FILE_BYTES = 1024 * 1024;
const PACKAGE_CACHE_TOTAL_BYTES = 256 * 1024 * 1024;

export const deliveryModule = defineModule({
  name: 'delivery',
  description: 'the apt/yum edge: repository files over HTTP with token auth, install snippets and scripts',
  deps: [grpcServerModule, grpcClientsModule, httpServerModule, busModule, metricsModule, blobStoreModule],
  projections: [deliveryProjection()],
  init: async (ctx) => {
    const { config } = ctx;
    const bus = ctx.use(busModule);
    const clients = ctx.use(grpcClientsModule);
    const blobs = ctx.use(blobStoreModule);
    const stores = await openModuleStores(config, 'delivery');
    const catalog = new PublishedCatalog(stores.readModels, blobs);
    const packageIds = new Map<string, string>();
    for (const record of await stores.readModels.collection<PackageRecord>(PACKAGES).find({})) packageIds.set(record.id, record.packageId);

    const publicKeys = new PublicKeys(async (repositoryId) => {
      const key = await clients.client(SigningServiceDefinition, 'signing').getPublicKey({ repositoryId }, { caller: SYSTEM_CALLER });
      return { armored: key.armored, binary: key.binary };
    });
    const onChange = async (change: CatalogChange) => {
      if (change.kind === 'package') {
        if (change.deleted) packageIds.delete(change.record.id);
        else packageIds.set(change.record.id, change.record.packageId);
        return;
      }
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
    });
    await catalog.refreshAll();

    const tokens = clients.client(TokenServiceDefinition, 'token');
    const verdicts = new VerdictCache(
      async (token) => {
        const answer = await tokens.validateToken({ token, repositoryId: '' }, { caller: SYSTEM_CALLER });
        return { valid: answer.valid, kind: answer.kind, tokenId: answer.tokenId, ownerId: answer.ownerId, scopes: answer.scopes, repositoryId: answer.repositoryId };
      },
      { ttlMs: VERDICT_TTL_MS, negativeTtlMs: NEGATIVE_VERDICT_TTL_MS, maxEntries: 100_000 },
    );
    // every replica must hear every revocation: a group of its own (the host name is stable
    // across restarts on one node; a new pod reads the topic from its start, which is cheap)
    const revocations = await bus.subscribe({ group: `delivery-verdicts-${hostname()}`, topics: [topicOf('token')] }, async (message) => {
      if (REVOCATIONS.has(message.type)) verdicts.revoke((message.data as { tokenId: string }).tokenId);
    });
    const accounting = new TrafficAccounting((repositoryId, sha256) => packageIds.get(packageRecordId(repositoryId, sha256)));
    const http = ctx.use(httpServerModule);
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
        presignDownloads: config.blobs === 's3' && config.s3PresignDownloads,
      }),
    );
    ctx.use(grpcServerModule).server.add(DeliveryServiceDefinition, deliveryHandlers(clients.client(RepositoryServiceDefinition, 'repository'), config.publicUrl));

    // traffic leaves in batches, off the request path; a failed publish keeps nothing back
    // from the next batch's requests but is retried with its own messages once
    const flush = async () => {
      const messages = accounting.drain();
      if (messages.length === 0) return;
      await bus.publish(topicOf('delivery'), messages).catch(async (error) => {
        ctx.logger.warn({ err: error, messages: messages.length }, 'publishing delivery traffic failed; retrying once');
        await bus.publish(topicOf('delivery'), messages).catch((again) => ctx.logger.error({ err: again }, 'delivery traffic lost'));
      });
    };
    let flushing = Promise.resolve();
    const timer = setInterval(() => {
      flushing = flushing.then(flush);
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
