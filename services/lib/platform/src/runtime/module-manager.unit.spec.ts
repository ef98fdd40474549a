import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { defineSettings, integer, loadConfig } from './config';
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

  it('checks the settings of every module it will start, all at once, before starting any', () => {
    const events: string[] = [];
    const first = defineSettings({ size: integer('FIRST_SIZE', 1, 'size', 1) });
    const second = defineSettings({ count: integer('SECOND_COUNT', 1, 'count', 1) });
    const a = defineModule({ name: 'a', deps: [], settings: first, init: () => { events.push('init a'); return { value: 1 }; } });
    const b = defineModule({ name: 'b', deps: [a], settings: second, init: () => { events.push('init b'); return { value: 1 }; } });
    const env = loadConfig({ FIRST_SIZE: '0', SECOND_COUNT: 'many' });
    expect(() => new ModuleManager([b], env, silent)).toThrow(/FIRST_SIZE must be a whole number from 1[\s\S]*SECOND_COUNT must be a whole number from 1/);
    expect(events).toEqual([]);
  });

  it('hands a module its own settings and refuses settings it does not declare', async () => {
    const own = defineSettings({ size: integer('OWN_SIZE', 1, 'size') });
    const other = defineSettings({ size: integer('OTHER_SIZE', 1, 'size') });
    const reader = defineModule({ name: 'reader', deps: [], settings: own, init: (ctx) => ({ value: ctx.settings(own).size }) });
    const manager = new ModuleManager([reader], loadConfig({ OWN_SIZE: '7' }), silent);
    await manager.start();
    await manager.stop();
    const snooping = defineModule({ name: 'snooping', deps: [], settings: own, init: (ctx) => ({ value: ctx.settings(other).size }) });
    await expect(new ModuleManager([snooping], config, silent).start()).rejects.toThrow('module snooping reads settings it does not declare');
  });

  it('tells the failure handler, once, which running module failed', async () => {
    const failures: string[] = [];
    let fail: (error: unknown) => void = () => undefined;
    const flaky = defineModule({ name: 'flaky', deps: [], init: (ctx) => ((fail = ctx.fail), { value: 1 }) });
    const manager = new ModuleManager([flaky], config, silent, (name, error) => failures.push(`${name}: ${(error as Error).message}`));
    await manager.start();
    fail(new Error('subscription gave up'));
    fail(new Error('and again'));
    expect(failures).toEqual(['flaky: subscription gave up']);
    expect(manager.isReady()).toBe(false);
    await manager.stop();
  });
});
