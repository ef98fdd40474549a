import type { Logger } from 'pino';
import type { Config } from './config';
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

export class ModuleManager {
  private readonly instances = new Map<ModuleDefinition<unknown>, ModuleInstance<unknown>>();
  private readonly started: ModuleDefinition<unknown>[] = [];
  private readonly order: ModuleDefinition<unknown>[];
  private ready = false;

  constructor(
    targets: ModuleDefinition<unknown>[],
    private readonly config: Config,
    private readonly logger: Logger,
  ) {
    this.order = resolveStartOrder(targets);
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
      try {
        const instance = await module.init({
          config: this.config,
          logger,
          running,
          isProcessReady: () => this.ready,
          use: <T>(dep: ModuleDefinition<T>) => {
            if (!module.deps.includes(dep as ModuleDefinition<unknown>)) {
              throw new Error(`module ${module.name} uses ${dep.name} without declaring it as a dependency`);
            }
            return this.instances.get(dep as ModuleDefinition<unknown>)!.value as T;
          },
        });
        this.instances.set(module, instance);
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
