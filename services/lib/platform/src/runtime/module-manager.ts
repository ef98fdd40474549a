import type { Logger } from 'pino';
import { ConfigurationError, readSettings, type Config, type SettingsDeclaration } from './config';
import type { ModuleDefinition, ModuleInstance } from './module';

export class ModuleStartError extends Error {
  constructor(
    readonly moduleName: string,
    readonly reason: unknown,
  ) {
    super(`module ${moduleName} failed to start: ${(reason as Error)?.message ?? reason}`);
  }
}

/** every module the targets need, dependencies before dependents */
export function resolveStartOrder(targets: ModuleDefinition<unknown>[]): ModuleDefinition<unknown>[] {
  const order: ModuleDefinition<unknown>[] = [];
  const state = new Map<ModuleDefinition<unknown>, 'visiting' | 'done'>();
  const visit = (module: ModuleDefinition<unknown>, path: string[]) => {
    const seen = state.get(module);
    if (seen === 'done') return;
    if (seen === 'visiting') throw new Error(`module dependency cycle: ${[...path, module.name].join(' -> ')}`);
    state.set(module, 'visiting');
    for (const dep of module.deps) visit(dep, [...path, module.name]);
    state.set(module, 'done');
    order.push(module);
  };
  for (const target of targets) visit(target, []);
  return order;
}

/** who hears that a running module failed; the program stops the process */
export type ModuleFailureHandler = (moduleName: string, error: unknown) => void;

export class ModuleManager {
  private readonly settings = new Map<SettingsDeclaration, unknown>();
  private failed = false;
  private readonly instances = new Map<ModuleDefinition<unknown>, ModuleInstance<unknown>>();
  private readonly started: ModuleDefinition<unknown>[] = [];
  private readonly order: ModuleDefinition<unknown>[];
  private ready = false;

  constructor(
    targets: ModuleDefinition<unknown>[],
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly onFailure: ModuleFailureHandler = (name, error) => logger.fatal({ module: name, err: error }, `module ${name} failed`),
  ) {
    this.order = resolveStartOrder(targets);
    // every module's settings are checked before any starts, and every problem is told at once
    const problems: string[] = [];
    for (const declaration of new Set(this.order.map((m) => m.settings).filter((d) => d !== undefined))) {
      const { values, errors } = readSettings(declaration, config.env);
      problems.push(...errors);
      this.settings.set(declaration, values);
    }
    if (problems.length) throw new ConfigurationError(problems);
  }

  get moduleNames(): string[] {
    return this.order.map((m) => m.name);
  }

  isReady(): boolean {
    return this.ready;
  }

  /** initialises then starts every module; on the first failure stops what started and throws naming the module */
  async start(): Promise<void> {
    const running = new Set(this.moduleNames);
    for (const module of this.order) {
      const logger = this.logger.child({ module: module.name });
      const initStarted = performance.now();
      try {
        const instance = await module.init({
          config: this.config,
          logger,
          running,
          isProcessReady: () => this.ready,
          settings: (declaration) => {
            // its own settings, or those of a module it uses (which mode the bus runs in, say)
            if (declaration !== module.settings && !module.deps.some((dep) => dep.settings === declaration)) {
              throw new Error(`module ${module.name} reads settings it does not declare`);
            }
            return this.settings.get(declaration) as never;
          },
          fail: (error) => {
            // the first failure stops the process; later ones are consequences of stopping
            if (this.failed) return;
            this.failed = true;
            this.ready = false;
            this.onFailure(module.name, error);
          },
          use: <T>(dep: ModuleDefinition<T>) => {
            if (!module.deps.includes(dep as ModuleDefinition<unknown>)) {
              throw new Error(`module ${module.name} uses ${dep.name} without declaring it as a dependency`);
            }
            return this.instances.get(dep as ModuleDefinition<unknown>)!.value as T;
          },
        });
        this.instances.set(module, instance);
        // what each module's start costs, for operators and the restart tests
        logger.info({ ms: Math.round(performance.now() - initStarted) }, 'module initialised');
      } catch (error) {
        await this.stop();
        throw new ModuleStartError(module.name, error);
      }
    }
    for (const module of this.order) {
      try {
        await this.instances.get(module)!.start?.();
        this.started.push(module);
      } catch (error) {
        await this.stop();
        throw new ModuleStartError(module.name, error);
      }
    }
    this.ready = true;
  }

  /** stops started modules in reverse order; initialised-but-not-started ones get stop() too, so stores close */
  async stop(): Promise<void> {
    this.ready = false;
    const toStop = [...this.order].reverse().filter((m) => this.instances.has(m));
    for (const module of toStop) {
      try {
        await this.instances.get(module)!.drain?.();
      } catch (error) {
        this.logger.warn({ module: module.name, err: error }, 'module did not drain cleanly');
      }
    }
    for (const module of toStop) {
      const instance = this.instances.get(module)!;
      this.instances.delete(module);
      try {
        await instance.stop?.();
      } catch (error) {
        this.logger.warn({ module: module.name, err: error }, 'module did not stop cleanly');
      }
    }
  }
}
