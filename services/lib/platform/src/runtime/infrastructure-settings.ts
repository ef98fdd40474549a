import { loadOrCreateKey } from '../crypto/master-key';
import { CallerAssertions } from '../grpc/caller';
import { boolean, defineSettings, integer, text } from './config';

/*
 * The settings of the process's infrastructure modules (infrastructure.ts), apart from them:
 * an edge worker reads the same settings without loading what the modules run (fastify, the
 * gRPC server), which it never uses.
 */

export const METRICS_SETTINGS = defineSettings({
  metricsPort: integer('METRICS_PORT', 9464, 'port of /metrics, apart from the public port (0: any free port, logged)', 0, 65535),
  metricsHost: text('METRICS_HOST', '127.0.0.1', '/metrics listen address (0.0.0.0 in a cluster, for the scraper)'),
});

export const INTERNAL_AUTH_SETTINGS = defineSettings({
  internalAuthKey: text(
    'INTERNAL_AUTH_KEY',
    undefined,
    'base64 32-byte key signing the caller assertions modules send each other; every process of a cluster needs the same one; generated into DATA_DIR/internal-auth.key when unset',
  ),
});

/** the caller assertions of this node's processes (one key for all: the setting, or the key generated into DATA_DIR) */
export const loadCallerAssertions = async (dataDir: string, internalAuthKey: string | undefined): Promise<CallerAssertions> =>
  new CallerAssertions(await loadOrCreateKey(dataDir, 'internal-auth.key', 'INTERNAL_AUTH_KEY', internalAuthKey));

export const GRPC_SERVER_SETTINGS = defineSettings({
  grpcPort: integer('GRPC_PORT', 0, 'gRPC port of this process (0: any free loopback port, enough for single-node mode)', 0, 65535),
  grpcHost: text('GRPC_HOST', '127.0.0.1', 'gRPC listen address (0.0.0.0 in a cluster)'),
});

export const GRPC_CLIENT_SETTINGS = defineSettings({
  grpcDeadlineMs: integer('GRPC_DEADLINE_MS', 10_000, 'deadline of every gRPC call between modules', 1),
});

export const HTTP_SERVER_SETTINGS = defineSettings({
  port: integer('PORT', 8080, 'HTTP port: the API and the console (gateway), the apt/yum edge (delivery), liveness and readiness (every process)', 0, 65535),
  host: text('HOST', '0.0.0.0', 'HTTP listen address'),
  trustProxy: boolean('TRUST_PROXY', false, 'take the client address and scheme from X-Forwarded-* (only behind a proxy that sets them; otherwise clients could fake their IP past the per-IP sign-in limit)'),
  headersTimeoutSeconds: integer('HTTP_HEADERS_TIMEOUT_S', 10, "time a client has to send a request's headers", 1),
  requestTimeoutSeconds: integer('HTTP_REQUEST_TIMEOUT_S', 30, 'time a client has to send a whole request, body included (uploads: UPLOAD_TIMEOUT_S)', 1),
  idleTimeoutSeconds: integer('HTTP_IDLE_TIMEOUT_S', 30, 'a connection on which nothing moves for this long is closed (a stalled upload too)', 1),
  uploadTimeoutSeconds: integer('UPLOAD_TIMEOUT_S', 3600, 'time an upload may take while it keeps moving (100 MiB in an hour is 29 KB/s)', 1),
});
