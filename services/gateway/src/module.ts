import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, defineSettings, grpcClientsModule, httpServerModule, text } from '@packyard/platform';
import { blobStoreModule } from '@packyard/platform/runtime/blob-store.module';
import { HealthDefinition, HealthCheckResponse_ServingStatus } from '@packyard/proto/grpc/health/v1/health';
import { gatewayApp } from './app';

/** the modules the API calls; each must answer gRPC health for the gateway to be ready */
const UPSTREAM_MODULES = ['identity', 'workspace', 'repository', 'artifact', 'token', 'delivery'];

const defaultFrontendsDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'frontends');

export const GATEWAY_SETTINGS = defineSettings({
  consoleDir: text('CONSOLE_DIR', undefined, 'folder with the built console (default: frontends/ of this checkout)'),
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
    await http.app.register(gatewayApp, {
      clients,
      blobs: ctx.use(blobStoreModule),
      frontendsDir: ctx.settings(GATEWAY_SETTINGS).consoleDir ?? defaultFrontendsDir,
      maxUploadBytes: ctx.config.maxUploadBytes,
    });
    return { value: undefined };
  },
});
