import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, grpcClientsModule, httpServerModule, SYSTEM_CALLER } from '@packyard/platform';
import { blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { HealthDefinition, HealthCheckResponse_ServingStatus } from '@packyard/proto/grpc/health/v1/health';
import { gatewayApp } from './app';

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
    await http.app.register(gatewayApp, {
      clients,
      blobs: ctx.use(blobStoreModule),
      frontendsDir: ctx.config.consoleDir ?? defaultFrontendsDir,
      maxUploadBytes: ctx.config.maxUploadBytes,
    });
    return {
      value: undefined,
      // the one line a person starting Packyard looks for
      start: async () => {
        const url = consoleUrl(ctx.config.publicUrl, ctx.config.host, http.port());
        ctx.logger.info({ url }, `Console at ${url}`);
      },
    };
  },
});

/** PUBLIC_URL, else this machine at the bound port (a wildcard address is reachable as localhost) */
export function consoleUrl(publicUrl: string | undefined, host: string, port: number): string {
  if (publicUrl) return `${publicUrl.replace(/\/+$/, '')}/`;
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}/`;
}
