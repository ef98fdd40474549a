import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, grpcClientsModule, httpServerModule, SYSTEM_CALLER } from '@packyard/platform';
import { abandonedAfterMs, sweepAbandoned, type BlobStore } from '@packyard/platform/blobs/index';
import { blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { HealthDefinition, HealthCheckResponse_ServingStatus } from '@packyard/proto/grpc/health/v1/health';
import { gatewayApp } from './app';
import { STAGING_PREFIX } from './routes/upload.routes';

/** the modules the API calls; each must answer gRPC health for the gateway to be ready */
const UPSTREAM_MODULES = ['identity', 'workspace', 'repository', 'artifact', 'token', 'delivery'];

const defaultFrontendsDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'frontends');

export const gatewayModule = defineModule({
  name: 'gateway',
  description: 'the /api/v1 REST API and the console; maps HTTP onto gRPC calls to the other modules',
  deps: [httpServerModule, grpcClientsModule, blobStoreModule],
  init: async (ctx) => {
    const http = ctx.use(httpServerModule);
    const clients = ctx.use(grpcClientsModule);
    for (const module of UPSTREAM_MODULES) {
      const health = clients.client(HealthDefinition, module);
      http.addReadinessCheck(module, async () => {
        const { status } = await health.check({ service: module }, { caller: SYSTEM_CALLER });
        return { ok: status === HealthCheckResponse_ServingStatus.SERVING };
      });
    }
    const blobs = ctx.use(blobStoreModule);
    await http.app.register(gatewayApp, {
      clients,
      blobs,
      frontendsDir: ctx.config.consoleDir ?? defaultFrontendsDir,
      maxUploadBytes: ctx.config.maxUploadBytes,
    });
    // uploads staged by a gateway that died before artifact claimed them
    const stopSweeping = await sweepAbandoned('staged uploads', abandonedAfterMs(ctx.config), ctx.logger, (cutoff) => removeStagedBefore(blobs, cutoff));
    return { value: undefined, stop: async () => stopSweeping() };
  },
});

async function removeStagedBefore(blobs: BlobStore, cutoff: Date): Promise<number> {
  let removed = 0;
  for await (const key of blobs.list(STAGING_PREFIX, { modifiedBefore: cutoff })) {
    await blobs.delete(key);
    removed++;
  }
  return removed;
}
