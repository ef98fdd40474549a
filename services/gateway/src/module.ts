import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, defineSettings, grpcClientsModule, HTTP_SERVER_SETTINGS, httpServerModule, PUBLIC_URL_SETTING, text } from '@packyard/platform';
import { sweepAbandoned, type BlobStore } from '@packyard/platform/blobs/index';
import { BLOB_STORE_SETTINGS, blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { HealthDefinition, HealthCheckResponse_ServingStatus } from '@packyard/proto/grpc/health/v1/health';
import { gatewayApp } from './app';
import { STAGING_PREFIX } from './routes/upload.routes';

/** the modules the API calls; each must answer gRPC health for the gateway to be ready */
const UPSTREAM_MODULES = ['identity', 'workspace', 'repository', 'artifact', 'token', 'delivery'];

const defaultFrontendsDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'frontends');

export const GATEWAY_SETTINGS = defineSettings({
  consoleDir: text('CONSOLE_DIR', undefined, 'folder with the built console (default: frontends/ of this checkout)'),
  publicUrl: PUBLIC_URL_SETTING,
});

export const gatewayModule = defineModule({
  name: 'gateway',
  description: 'the /api/v1 REST API and the console; maps HTTP onto gRPC calls to the other modules',
  deps: [httpServerModule, grpcClientsModule, blobStoreModule],
  settings: GATEWAY_SETTINGS,
  init: async (ctx) => {
    const http = ctx.use(httpServerModule);
    const clients = ctx.use(grpcClientsModule);
    // a module of this process reports its own readiness; the others must answer over gRPC,
    // one replica at least (a replica restarting must not take every gateway out of service)
    for (const module of UPSTREAM_MODULES.filter((name) => !ctx.running.has(name))) {
      http.addReadinessCheck(module, async () => {
        const answers = await Promise.allSettled(clients.replicaClients(HealthDefinition, module).map((health) => health.check({ service: module })));
        if (answers.some((answer) => answer.status === 'fulfilled' && answer.value.status === HealthCheckResponse_ServingStatus.SERVING)) return { ok: true };
        const refused = answers.find((answer) => answer.status === 'rejected');
        return { ok: false, detail: refused ? (refused.reason as Error).message : 'not serving' };
      });
    }
    const blobs = ctx.use(blobStoreModule);
    await http.app.register(gatewayApp, {
      clients,
      blobs,
      frontendsDir: ctx.settings(GATEWAY_SETTINGS).consoleDir ?? defaultFrontendsDir,
      maxUploadBytes: ctx.config.maxUploadBytes,
    });
    // uploads staged by a gateway that died before artifact claimed them
    const stopSweeping = await sweepAbandoned('staged uploads', ctx.settings(BLOB_STORE_SETTINGS).abandonedAfterSeconds * 1000, ctx.logger, (cutoff) => removeStagedBefore(blobs, cutoff));
    return {
      value: undefined,
      // the one line a person starting Packyard looks for
      start: async () => {
        const url = consoleUrl(ctx.settings(GATEWAY_SETTINGS).publicUrl, ctx.settings(HTTP_SERVER_SETTINGS).host, http.port());
        ctx.logger.info({ url }, `Console at ${url}`);
      },
      stop: async () => stopSweeping(),
    };
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

/** PUBLIC_URL, else this machine at the bound port (a wildcard address is reachable as localhost) */
export function consoleUrl(publicUrl: string | undefined, host: string, port: number): string {
  if (publicUrl) return `${publicUrl.replace(/\/+$/, '')}/`;
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}/`;
}
