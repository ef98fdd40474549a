import { busModule, defineModule, type EventSourcing, grpcClientsModule, grpcServerModule, httpServerModule, openModuleStores, serviceCaller, startEventSourcing } from '@packyard/platform';
import { blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { ArtifactServiceDefinition } from '@packyard/proto/packyard/artifact/v1/artifact';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { artifactHandlers } from './grpc/artifact.handlers';
import { packagesProjection } from './projections/packages.projection';
import { retentionPoliciesProjection } from './projections/retention-policies.projection';
import { packageDownloadedReaction } from './reactions/package-downloaded.reaction';
import { repositoryPurgedReaction } from './reactions/repository-purged.reaction';
import { retentionAfterUploadReaction } from './reactions/retention-after-upload.reaction';
import { WorkerDigesters } from './uploads/worker-digester';

const projections = [packagesProjection, retentionPoliciesProjection];

export const artifactModule = defineModule({
  name: 'artifact',
  description: 'package uploads: checks, parses and stores .deb and .rpm files content-addressed; has each .rpm signed with its repository key',
  deps: [grpcServerModule, grpcClientsModule, httpServerModule, busModule, blobStoreModule],
  projections,
  init: async (ctx) => {
    const stores = await openModuleStores(ctx.config, 'artifact');
    const blobs = ctx.use(blobStoreModule);
    let started: EventSourcing | undefined;
    // a message arriving before startEventSourcing returns fails and is redelivered
    const running = () => started ?? (() => { throw new Error('artifact is still starting'); })();
    const es = await startEventSourcing({
      module: 'artifact',
      stores,
      bus: ctx.use(busModule),
      logger: ctx.logger,
      projections,
      reactions: [
        packageDownloadedReaction(stores.events),
        repositoryPurgedReaction(running, blobs),
        retentionAfterUploadReaction(running, blobs),
      ],
      fail: ctx.fail,
    });
    started = es;
    ctx.use(httpServerModule).addReadinessCheck('artifact', es.ready);
    const repositories = ctx.use(grpcClientsModule).client(RepositoryServiceDefinition, 'repository');
    const signing = ctx.use(grpcClientsModule).client(SigningServiceDefinition, 'signing');
    const digesters = new WorkerDigesters();
    ctx.use(grpcServerModule).server.add(
      ArtifactServiceDefinition,
      artifactHandlers(es, blobs, repositories, {
        maxBytes: ctx.config.maxUploadBytes,
        digester: digesters.digester,
        signRpmHeader: async (repositoryId, header) => (await signing.signRpmHeader({ repositoryId, header }, { caller: serviceCaller('artifact') })).signature,
      }),
    );
    return {
      value: undefined,
      stop: async () => {
        await es.stop();
        await digesters.close();
      },
    };
  },
});
