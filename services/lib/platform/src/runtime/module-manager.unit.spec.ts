import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import { defineModule, type ModuleDefinition } from './module';
import { ModuleManager, ModuleStartError, resolveStartOrder } from './module-manager';

const silent = pino({ level: 'silent' });
const config = loadConfig({});

function recordingModules(events: string[], failing?: string) {
  const make = (name: string, deps: ModuleDefinition<unknown>[]) =>
    defineModule({
      name,
      deps,
      init: () => {
        events.push(`init ${name}`);
        return {
          value: name,
          start: async () => {
            if (name === failing) throw new Error('port already in use');
            events.push(`start ${name}`);
          },
          stop: async () => void events.push(`stop ${name}`),
        };
      },
    });
  const store = make('store', []);
  const server = make('server', []);
  const workspace = make('workspace', [store, server]);
  const gateway = make('gateway', [server]);
  return { store, server, workspace, gateway };
}

describe('module manager', () => {
  it('starts dependencies first and stops in reverse order', async () => {
    const events: string[] = [];
    const { workspace, gateway } = recordingModules(events);
    const manager = new ModuleManager([gateway, workspace], config, silent);
    await manager.start();
    expect(manager.isReady()).toBe(true);
    expect(manager.moduleNames).toEqual(['server', 'gateway', 'store', 'workspace']);
    await manager.stop();
    expect(events.filter((e) => e.startsWith('stop'))).toEqual(['stop workspace', 'stop store', 'stop gateway', 'stop server']);
  });

  it('names the module that failed to start and stops the ones already running', async () => {
    const events: string[] = [];
    const { workspace } = recordingModules(events, 'workspace');
    const manager = new ModuleManager([workspace], config, silent);
    const failure = await manager.start().catch((error) => error);
    expect(failure).toBeInstanceOf(ModuleStartError);
    expect(failure.message).toBe('module workspace failed to start: port already in use');
    expect(events).toContain('stop store');
    expect(manager.isReady()).toBe(false);
  });

  it('refuses a module that uses another without declaring it', async () => {
    const hidden = defineModule({ name: 'hidden', deps: [], init: () => ({ value: 1 }) });
    const sneaky = defineModule({ name: 'sneaky', deps: [], init: (ctx) => ({ value: ctx.use(hidden) }) });
    const manager = new ModuleManager([hidden, sneaky], config, silent);
    await expect(manager.start()).rejects.toThrow('module sneaky failed to start: module sneaky uses hidden without declaring it as a dependency');
  });

  it('detects dependency cycles', () => {
    const a: ModuleDefinition<unknown> = { name: 'a', deps: [], init: () => ({ value: 1 }) };
    const b: ModuleDefinition<unknown> = { name: 'b', deps: [a], init: () => ({ value: 1 }) };
    a.deps.push(b);
    expect(() => resolveStartOrder([a])).toThrow('module dependency cycle: a -> b -> a');
  });
});
