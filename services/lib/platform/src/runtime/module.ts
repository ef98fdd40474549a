import type { Logger } from 'pino';
import type { Projection } from '../readmodels/projection-runner';
import type { Config, Setting, SettingsDeclaration, ValuesOf } from './config';

/**
 * A module is one unit of the program (Loki/Mimir's modules): a service such as
 * `workspace`, or infrastructure such as the HTTP server. It declares its
 * dependencies beside its code; the module manager starts the dependency closure of
 * the chosen targets in order and stops it in reverse.
 */
export interface ModuleContext {
  /** the settings every process reads (data folder, log level, event store, ...) */
  config: Config;
  /** the module's own settings, or a dependency's, parsed from the environment */
  settings<S extends Record<string, Setting<unknown>>>(declaration: SettingsDeclaration<S>): ValuesOf<S>;
  logger: Logger;
  /**
   * reports that the module can no longer do its work while running (a subscription that
   * keeps failing, a server that errors): the process stops with the module's name in the
   * log and exits non-zero, for its supervisor to restart it (dskit's failed service)
   */
  fail(error: unknown): void;
  /** the value of a dependency (it must be listed in `deps`) */
  use<T>(module: ModuleDefinition<T>): T;
  /** the names of every module running in this process */
  running: ReadonlySet<string>;
  /** true once every module of the process has started (for readiness) */
  isProcessReady(): boolean;
}

export interface ModuleInstance<T> {
  value: T;
  /** called once every module of the process has been initialised */
  start?(): Promise<void>;
  /** shutdown, first phase, every module: stop accepting work and let in-flight work finish */
  drain?(): Promise<void>;
  /** shutdown, second phase, in reverse dependency order: release resources (stores close last) */
  stop?(): Promise<void>;
}

export interface ModuleDefinition<T = unknown> {
  name: string;
  deps: ModuleDefinition<unknown>[];
  /** the environment variables the module reads; `packyard --help` prints them */
  settings?: SettingsDeclaration;
  /** infrastructure (servers, stores, bus, metrics) cannot be chosen with --target */
  hidden?: boolean;
  /** a service module: reachable over gRPC and listed by --list-targets */
  description?: string;
  init(ctx: ModuleContext): Promise<ModuleInstance<T>> | ModuleInstance<T>;
  /** read models `packyard rebuild-projections --target=<name>` rebuilds from the module's log */
  projections?: Projection[];
}

export const defineModule = <T>(definition: ModuleDefinition<T>): ModuleDefinition<T> => definition;

/** a module with no behaviour of its own that pulls in others (like `all`) */
export const groupModule = (name: string, description: string, deps: ModuleDefinition<unknown>[]): ModuleDefinition<void> =>
  defineModule({ name, description, deps, init: () => ({ value: undefined }) });
