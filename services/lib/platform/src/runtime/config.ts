import { resolve } from 'node:path';

/**
 * Configuration comes from environment variables. Every setting is declared once, by
 * the module that reads it (a few every process needs are declared here), with its
 * default (the defaults are single-node mode), its parser and its description;
 * `packyard --help` and the README's table are printed from those declarations.
 */
export interface Setting<T, D extends string | undefined = string | undefined> {
  env: string;
  default: D;
  description: string;
  parse: (raw: string) => T;
}

export const text = <D extends string | undefined>(env: string, def: D, description: string): Setting<string, D> => ({
  env,
  default: def,
  description,
  parse: (raw) => raw,
});

export const integer = (env: string, def: number, description: string, min = 0, max = Number.MAX_SAFE_INTEGER): Setting<number, string> => ({
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

export const oneOf = <const V extends string>(env: string, def: V, values: readonly V[], description: string): Setting<V, string> => ({
  env,
  default: def,
  description: `${description} (${values.join(' | ')})`,
  parse: (raw) => {
    if (!values.includes(raw as V)) throw new Error(`${env} must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as V;
  },
});

export const boolean = (env: string, def: boolean, description: string): Setting<boolean, string> => ({
  env,
  default: String(def),
  description,
  parse: (raw) => {
    if (!['true', 'false', '1', '0'].includes(raw)) throw new Error(`${env} must be true or false, got "${raw}"`);
    return raw === 'true' || raw === '1';
  },
});

export const GiB = 1024 ** 3;

/** read by every module that writes links for users (install snippets, e-mails) */
export const PUBLIC_URL_SETTING = text('PUBLIC_URL', undefined, "origin users and apt/dnf reach Packyard at (e.g. https://packages.example.com); defaults to the request's Host");

/** read by workspace and repository, whose deletions both wait out the same grace period */
export const DELETION_GRACE_SETTING = integer(
  'DELETION_GRACE_S',
  7 * 24 * 3600,
  'how long a deleted workspace or repository can be restored (console: Recently deleted; API: POST …/restore) before it is purged for good with its packages, tokens and keys',
);
export const PURGE_CHECK_INTERVAL_SETTING = integer('PURGE_CHECK_INTERVAL_S', 60, 'how often workspace and repository look for deletions whose grace period is over, and purge them', 1);

/** A module's own settings, declared beside its code; `check` relates settings to each other. */
export interface SettingsDeclaration<S extends Record<string, Setting<unknown>> = Record<string, Setting<unknown>>> {
  settings: S;
  check?(values: ValuesOf<S>): string[];
}

type ValueOf<S> = S extends Setting<infer T, infer D> ? (D extends string ? T : T | undefined) : never;
export type ValuesOf<S> = { [K in keyof S]: ValueOf<S[K]> };

export const defineSettings = <S extends Record<string, Setting<unknown>>>(settings: S, check?: (values: ValuesOf<S>) => string[]): SettingsDeclaration<S> => ({
  settings,
  check,
});

/** parses a declaration's settings from the environment; every problem is reported at once */
export function readSettings<S extends Record<string, Setting<unknown>>>(declaration: SettingsDeclaration<S>, env: NodeJS.ProcessEnv): { values: ValuesOf<S>; errors: string[] } {
  const errors: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(declaration.settings)) {
    const raw = env[setting.env] ?? setting.default;
    if (raw === undefined || raw === '') {
      values[key] = undefined;
      continue;
    }
    try {
      values[key] = setting.parse(raw);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  if (errors.length === 0) errors.push(...(declaration.check?.(values as ValuesOf<S>) ?? []));
  return { values: values as ValuesOf<S>, errors };
}

export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * What every process needs whichever modules it runs: where its data lives, how it logs
 * and stops, the master key and the event store every event-sourced module opens.
 * Everything else is declared by the module that reads it.
 */
export const PROCESS_SETTINGS = defineSettings(
  {
    dataDir: text('DATA_DIR', './data', 'where the process keeps its SQLite files, blobs and generated keys'),
    logLevel: oneOf('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'log level'),
    logFormat: oneOf('LOG_FORMAT', 'auto', ['auto', 'json', 'pretty'] as const, 'log lines: one JSON object each, or human-readable (auto: human-readable when stdout is a terminal)'),
    shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 4_000, 'how long SIGTERM waits for in-flight work before closing', 0),
    masterKey: text('PACKYARD_MASTER_KEY', undefined, 'base64 32-byte key sealing repository tokens and signing keys; generated into DATA_DIR/master.key when unset'),
    maxUploadBytes: integer('MAX_UPLOAD_BYTES', 100 * 1024 * 1024, 'largest package accepted (spec: 100 MiB); the gateway stops reading there, artifact checks it again', 1),
    eventStore: oneOf('EVENT_STORE', 'sqlite', ['sqlite', 'mongodb'] as const, 'event store and read models'),
    mongodbUrl: text('MONGODB_URL', undefined, 'MongoDB connection string (EVENT_STORE=mongodb)'),
    mongodbDatabase: text('MONGODB_DATABASE', 'packyard', 'MongoDB database name'),
  },
  (values) => (values.eventStore === 'mongodb' && !values.mongodbUrl ? ['EVENT_STORE=mongodb needs MONGODB_URL'] : []),
);

export type Config = ValuesOf<typeof PROCESS_SETTINGS.settings> & {
  /** `<MODULE>_GRPC_ADDR` overrides: where another process serves a module */
  moduleAddresses: Record<string, string>;
  /** the environment the modules read their own settings from */
  env: NodeJS.ProcessEnv;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { values, errors } = readSettings(PROCESS_SETTINGS, env);
  if (errors.length) throw new ConfigurationError(errors);
  const moduleAddresses: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = /^([A-Z]+)_GRPC_ADDR$/.exec(name);
    if (match && value) moduleAddresses[match[1].toLowerCase()] = value;
  }
  return { ...values, dataDir: resolve(values.dataDir), moduleAddresses, env };
}

/** the process settings, then each module's, once each (modules may share a declaration) */
const settingsOf = (modules: { settings?: SettingsDeclaration }[]): Setting<unknown>[] => {
  const seen = new Map<string, Setting<unknown>>();
  for (const declaration of [PROCESS_SETTINGS, ...modules.map((m) => m.settings)]) {
    for (const setting of Object.values(declaration?.settings ?? {})) if (!seen.has(setting.env)) seen.set(setting.env, setting);
  }
  return [...seen.values()];
};

const GRPC_ADDR_MEANING = 'host:port of a module served by another process, e.g. WORKSPACE_GRPC_ADDR=workspace:9090; DELIVERY_GRPC_ADDR may list every delivery replica, comma-separated';

export function describeSettings(modules: { settings?: SettingsDeclaration }[]): string {
  const rows = settingsOf(modules).map((s) => `  ${s.env.padEnd(28)} ${(s.default ?? '(unset)').padEnd(30)} ${s.description}`);
  return [`  ${'VARIABLE'.padEnd(28)} ${'DEFAULT'.padEnd(30)} MEANING`, ...rows, `  ${'<MODULE>_GRPC_ADDR'.padEnd(28)} ${'(this process)'.padEnd(30)} ${GRPC_ADDR_MEANING}`].join('\n');
}

export function settingsMarkdownTable(modules: { settings?: SettingsDeclaration }[]): string {
  const rows = settingsOf(modules).map((s) => `| \`${s.env}\` | ${s.default === undefined ? '(unset)' : `\`${s.default}\``} | ${s.description} |`);
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows, `| \`<MODULE>_GRPC_ADDR\` | (this process) | ${GRPC_ADDR_MEANING.replace('WORKSPACE_GRPC_ADDR=workspace:9090', '`WORKSPACE_GRPC_ADDR=workspace:9090`').replace('DELIVERY_GRPC_ADDR', '`DELIVERY_GRPC_ADDR`')} |`].join('\n');
}
