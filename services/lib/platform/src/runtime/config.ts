import { resolve } from 'node:path';

/**
 * Configuration comes from environment variables. Every setting is declared once here
 * with its default (the defaults are single-node mode), its parser and its
 * description; `packyard --help` and the README's table are printed from this list.
 */
interface Setting<T, D extends string | undefined = string | undefined> {
  env: string;
  default: D;
  description: string;
  parse: (raw: string) => T;
}

const text = <D extends string | undefined>(env: string, def: D, description: string): Setting<string, D> => ({
  env,
  default: def,
  description,
  parse: (raw) => raw,
});

const integer = (env: string, def: number, description: string, min = 0, max = Number.MAX_SAFE_INTEGER): Setting<number, string> => ({
  env,
  default: String(def),
  description,
  parse: (raw) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`${env} must be a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  },
});

const oneOf = <const V extends string>(env: string, def: V, values: readonly V[], description: string): Setting<V, string> => ({
  env,
  default: def,
  description: `${description} (${values.join(' | ')})`,
  parse: (raw) => {
    if (!values.includes(raw as V)) throw new Error(`${env} must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as V;
  },
});

const boolean = (env: string, def: boolean, description: string): Setting<boolean, string> => ({
  env,
  default: String(def),
  description,
  parse: (raw) => {
    if (!['true', 'false', '1', '0'].includes(raw)) throw new Error(`${env} must be true or false, got "${raw}"`);
    return raw === 'true' || raw === '1';
  },
});

const GiB = 1024 ** 3;

export const SETTINGS = {
  port: integer('PORT', 8080, 'HTTP port for the API, the console and the apt/yum edge', 0, 65535),
  host: text('HOST', '0.0.0.0', 'HTTP listen address'),
  trustProxy: boolean('TRUST_PROXY', false, 'take the client address and scheme from X-Forwarded-* (only behind a proxy that sets them; otherwise clients could fake their IP past the per-IP sign-in limit)'),
  dataDir: text('DATA_DIR', './data', 'where single-node mode keeps its SQLite files, blobs and master key'),
  httpHeadersTimeoutSeconds: integer('HTTP_HEADERS_TIMEOUT_S', 10, 'time a client has to send a request\'s headers', 1),
  httpRequestTimeoutSeconds: integer('HTTP_REQUEST_TIMEOUT_S', 30, 'time a client has to send a whole request, body included (uploads: UPLOAD_TIMEOUT_S)', 1),
  httpIdleTimeoutSeconds: integer('HTTP_IDLE_TIMEOUT_S', 30, 'a connection on which nothing moves for this long is closed (a stalled upload too)', 1),
  uploadTimeoutSeconds: integer('UPLOAD_TIMEOUT_S', 3600, 'time an upload may take while it keeps moving (100 MiB in an hour is 29 KB/s)', 1),
  grpcPort: integer('GRPC_PORT', 0, 'gRPC port of this process (0: any free loopback port, enough for single-node mode)', 0, 65535),
  grpcHost: text('GRPC_HOST', '127.0.0.1', 'gRPC listen address (0.0.0.0 in a cluster)'),
  grpcDeadlineMs: integer('GRPC_DEADLINE_MS', 10_000, 'deadline of every gRPC call between modules', 1),
  logLevel: oneOf('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'log level'),
  publicUrl: text('PUBLIC_URL', undefined, 'origin users and apt/dnf reach Packyard at (e.g. https://packages.example.com); defaults to the request\'s Host'),
  eventStore: oneOf('EVENT_STORE', 'sqlite', ['sqlite', 'mongodb'] as const, 'event store and read models'),
  mongodbUrl: text('MONGODB_URL', undefined, 'MongoDB connection string (EVENT_STORE=mongodb)'),
  mongodbDatabase: text('MONGODB_DATABASE', 'packyard', 'MongoDB database name'),
  bus: oneOf('BUS', 'embedded', ['embedded', 'kafka'] as const, 'integration event bus'),
  kafkaBrokers: text('KAFKA_BROKERS', undefined, 'comma-separated Kafka brokers (BUS=kafka)'),
  blobs: oneOf('BLOBS', 'fs', ['fs', 's3'] as const, 'blob store for packages and index files'),
  s3Endpoint: text('S3_ENDPOINT', undefined, 'S3/MinIO endpoint URL, e.g. http://minio:9000 (BLOBS=s3)'),
  s3AccessKey: text('S3_ACCESS_KEY', undefined, 'S3 access key'),
  s3SecretKey: text('S3_SECRET_KEY', undefined, 'S3 secret key'),
  s3Bucket: text('S3_BUCKET', 'packyard', 'S3 bucket'),
  s3PresignDownloads: boolean('S3_PRESIGN_DOWNLOADS', false, 'redirect package downloads to short-lived presigned URLs (BLOBS=s3)'),
  masterKey: text('PACKYARD_MASTER_KEY', undefined, 'base64 32-byte key sealing repository tokens and signing keys; generated into DATA_DIR/master.key when unset'),
  maxUploadBytes: integer('MAX_UPLOAD_BYTES', 100 * 1024 * 1024, 'largest package accepted (spec: 100 MiB)', 1),
  storageLimitBytes: integer('PLAN_STORAGE_LIMIT_BYTES', 10 * GiB, 'storage limit of the default plan, shown in the usage summary'),
  egressLimitBytes: integer('PLAN_EGRESS_LIMIT_BYTES', 100 * GiB, 'monthly egress limit of the default plan'),
  loginFailuresBeforeDelay: integer('LOGIN_FAILURES_BEFORE_DELAY', 5, 'failed sign-ins of an account from one client address before each further attempt from there must wait (1 s, doubling; 429 with Retry-After); other addresses are not held up', 1),
  loginMaxDelaySeconds: integer('LOGIN_MAX_DELAY_S', 60, 'the longest wait between sign-in attempts of an account from one client address', 1),
  loginFailureWindowSeconds: integer('LOGIN_FAILURE_WINDOW_S', 900, 'how long failed sign-ins of an account from a client address are remembered', 1),
  authAttemptsPerIp: integer('AUTH_ATTEMPTS_PER_IP', 300, 'sign-in and registration attempts per client IP per minute (an office behind one NAT stays far below)', 1),
  oidcIssuer: text('OIDC_ISSUER', 'https://accounts.google.com', 'OpenID Connect issuer for "Sign in with Google"'),
  oidcClientId: text('OIDC_CLIENT_ID', undefined, 'OpenID Connect client id (Google sign-in is off until set)'),
  oidcClientSecret: text('OIDC_CLIENT_SECRET', undefined, 'OpenID Connect client secret'),
  consoleDir: text('CONSOLE_DIR', undefined, 'folder with the built console (default: frontends/ of this checkout)'),
  shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 4_000, 'how long SIGTERM waits for in-flight work before closing', 0),
} as const;

type SettingsOf<S> = { [K in keyof S]: S[K] extends Setting<infer T, infer D> ? (D extends string ? T : T | undefined) : never };
export type Config = SettingsOf<typeof SETTINGS> & {
  /** `<MODULE>_GRPC_ADDR` overrides: where another process serves a module */
  moduleAddresses: Record<string, string>;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const errors: string[] = [];
  const config: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[setting.env] ?? setting.default;
    if (raw === undefined || raw === '') {
      config[key] = undefined;
      continue;
    }
    try {
      config[key] = setting.parse(raw);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  if (config.eventStore === 'mongodb' && !config.mongodbUrl) errors.push('EVENT_STORE=mongodb needs MONGODB_URL');
  if (config.bus === 'kafka' && !config.kafkaBrokers) errors.push('BUS=kafka needs KAFKA_BROKERS');
  if (config.blobs === 's3' && !(config.s3Endpoint && config.s3AccessKey && config.s3SecretKey)) {
    errors.push('BLOBS=s3 needs S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY');
  }
  if (errors.length) throw new Error(`Invalid configuration:\n  ${errors.join('\n  ')}`);
  config.dataDir = resolve(config.dataDir as string);
  const moduleAddresses: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = /^([A-Z]+)_GRPC_ADDR$/.exec(name);
    if (match && value) moduleAddresses[match[1].toLowerCase()] = value;
  }
  return { ...(config as SettingsOf<typeof SETTINGS>), moduleAddresses };
}

export function describeSettings(): string {
  const rows = Object.values(SETTINGS).map((s: Setting<unknown>) => `  ${s.env.padEnd(28)} ${(s.default ?? '(unset)').padEnd(30)} ${s.description}`);
  return [`  ${'VARIABLE'.padEnd(28)} ${'DEFAULT'.padEnd(30)} MEANING`, ...rows, `  ${'<MODULE>_GRPC_ADDR'.padEnd(28)} ${'(this process)'.padEnd(30)} host:port of a module served by another process, e.g. WORKSPACE_GRPC_ADDR=workspace:9090`].join('\n');
}

export function settingsMarkdownTable(): string {
  const rows = Object.values(SETTINGS).map((s: Setting<unknown>) => `| \`${s.env}\` | ${s.default === undefined ? '(unset)' : `\`${s.default}\``} | ${s.description} |`);
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows, '| `<MODULE>_GRPC_ADDR` | (this process) | host:port of a module served by another process, e.g. `WORKSPACE_GRPC_ADDR=workspace:9090` |'].join('\n');
}
