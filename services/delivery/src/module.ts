import { hostname } from 'node:os';
import {
  BUS_SETTINGS,
  busModule,
  defineModule,
  grpcClientsModule,
  grpcServerModule,
  httpServerModule,
  inboxReaction,
  metricsModule,
  openModuleStores,
  startEventSourcing,
  startProjectionWhere,
  TOKEN_HASH_EVENTS,
  type EventStore,
  type NewEvent,
  type Reaction,
} from '@packyard/platform';
import { blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { DeliveryServiceDefinition } from '@packyard/proto/packyard/delivery/v1/delivery';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { PackageIds } from './accounting/package-ids';
import { tokenHashesProjection } from './auth/token-hashes.projection';
import { deliveryProjection, FOLLOWED_EVENTS, PACKAGES, type CatalogChange, type PackageRecord } from './catalog/delivery.projection';
import { DELIVERY_SETTINGS, edgeWorkerCount } from './delivery-settings';
import { assembleEdge } from './edge/edge-assembly';
import { EdgeWorkers } from './edge-workers/edge-workers';
import { deliveryHandlers } from './grpc/delivery.handlers';

export { DELIVERY_SETTINGS };

// a reaction's consumer group is named by its place in this list: the token context's comes last
const inboxReactions = (events: EventStore): Reaction[] =>
  Object.entries({ ...FOLLOWED_EVENTS, token: TOKEN_HASH_EVENTS }).map(([context, types]) => inboxReaction(events, context, new Set(Object.keys(types))));

const FLUSH_INTERVAL_MS = 1_000;
// which package a downloaded file is: looked up in the read model, the answers kept
const CACHED_PACKAGE_IDS = 100_000;

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
  projections: [deliveryProjection(), tokenHashesProjection()],
  init: async (ctx) => {
    const { config } = ctx;
    const settings = ctx.settings(DELIVERY_SETTINGS);
    const bus = ctx.use(busModule);
    const clients = ctx.use(grpcClientsModule);
    const blobs = ctx.use(blobStoreModule);
    const registry = ctx.use(metricsModule);
    const http = ctx.use(httpServerModule);
    const stores = await openModuleStores(config, 'delivery');
    // nothing is read at start: repositories load when first asked for, package ids when first counted
    const packageIds = new PackageIds(stores.readModels.collection<PackageRecord>(PACKAGES), CACHED_PACKAGE_IDS);
    // 'all' runs every module in this process: single-node mode, where the edge takes every core
    const workerCount = edgeWorkerCount(settings.edgeWorkers, ctx.running.has('all'));
    const { catalog, verdicts, accounting, publicKeys, edge } = assembleEdge({
      readModels: stores.readModels,
      blobs,
      clients,
      registry,
      logger: ctx.logger,
      presignDownloads: settings.s3PresignDownloads,
      packageIdOf: (repositoryId, sha256) => packageIds.of(repositoryId, sha256),
      answersPort: workerCount === 0,
    });

    // forked now, so they load their code and catalogue while this process starts its modules
    const workers: EdgeWorkers | undefined = workerCount > 0 ? new EdgeWorkers({ count: workerCount, primarySocket: http.delegatePublicPort(() => openPublicPort()), logger: ctx.logger, onTraffic: (totals) => accounting.add(totals), shutdownTimeoutMs: config.shutdownTimeoutMs }) : undefined;
    const openPublicPort = (): Promise<number> => {
      const here = ctx.use(grpcServerModule).address();
      // the workers ask this process's token and signing modules, wherever those are configured to answer
      return workers!.listen({ token: config.moduleAddresses.token ?? here, signing: config.moduleAddresses.signing ?? here });
    };
    if (workers) {
      workers.start();
      registry.addSource(() => workers.metrics());
    }

    const onChange = async (change: CatalogChange) => {
      if (change.kind === 'package') return packageIds.forget(change.record.id);
      // the workers first: this process's catalogue answers ?wait=published, which must not
      // say "served" before every process on the port serves it
      await workers?.refresh(change.repositoryId);
      publicKeys.forget(change.repositoryId);
      if (change.kind === 'keys') return;
      await catalog.refresh(change.repositoryId);
    };
    // a revocation reaches the verdicts once its hash is gone from the copy the edge reads (see tokenHashesProjection)
    const revoked = (tokenId: string) => {
      verdicts.revoke(tokenId);
      workers?.revoke(tokenId);
    };
    const catalogProjection = deliveryProjection(onChange);
    const tokenHashes = tokenHashesProjection(revoked);
    // delivery's log held no token events before it kept the token hashes
    await startProjectionWhere(stores.readModels, tokenHashes.name, catalogProjection.name);
    const es = await startEventSourcing({
      module: 'delivery',
      stores,
      bus,
      logger: ctx.logger,
      projections: [catalogProjection, tokenHashes],
      reactions: inboxReactions(stores.events),
      consumerGroup: consumerGroupOf(settings.replicaId, ctx.settings(BUS_SETTINGS).bus === 'kafka'),
      fail: ctx.fail,
    });

    http.addReadinessCheck('delivery', es.ready);
    // with edge workers, they answer apt and dnf on the port; this process gets what they forward, never an edge path
    if (workerCount === 0) http.addEdgeHandler(edge);
    ctx.use(grpcServerModule).server.add(DeliveryServiceDefinition, deliveryHandlers(clients.client(RepositoryServiceDefinition, 'repository'), catalog, settings.publicUrl));

    // traffic leaves in batches, off the request path, through the outbox like every other
    // event: appended to delivery's own store (one stream per repository), then relayed to
    // the bus, so a bus that is down delays the counts instead of losing them
    const flush = async () => {
      const byRepository = new Map<string, NewEvent[]>();
      for (const { id, type, data, key } of await accounting.drain()) {
        const events = byRepository.get(key) ?? [];
        events.push({ id, type, data, integration: true });
        byRepository.set(key, events);
      }
      // every repository served since the last flush in one append: one sync to disk, not one per repository
      if (byRepository.size > 0) await stores.events.appendEach([...byRepository].map(([repositoryId, events]) => ({ stream: `traffic-${repositoryId}`, expected: 'ANY', events })));
    };
    let flushing = Promise.resolve();
    const timer = setInterval(() => {
      flushing = flushing.then(flush).catch((error: unknown) => ctx.logger.error({ err: error }, 'recording delivery traffic failed'));
    }, FLUSH_INTERVAL_MS);
    timer.unref();

    return {
      value: undefined,
      // the workers close the public port and report their last traffic before this process stops counting
      drain: async () => workers?.stop(),
      stop: async () => {
        clearInterval(timer);
        await flushing;
        await flush();
        await es.stop();
      },
    };
  },
});
