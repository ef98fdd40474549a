import type { ModuleDefinition } from '@packyard/platform';

export interface Command {
  name: 'run' | 'help' | 'list-targets' | 'rebuild-projections';
  targets: string[];
}

/** parses `[rebuild-projections] [--target=a,b] [--help] [--list-targets]` */
export function parseArgs(argv: string[]): Command {
  let name: Command['name'] = 'run';
  let targets = ['all'];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { name: 'help', targets };
    if (arg === '--list-targets') return { name: 'list-targets', targets };
    if (arg === 'rebuild-projections') name = 'rebuild-projections';
    else if (arg.startsWith('--target=')) targets = arg.slice('--target='.length).split(',').map((t) => t.trim()).filter(Boolean);
    else if (arg === '--target' && argv[i + 1]) targets = argv[++i].split(',').map((t) => t.trim()).filter(Boolean);
    else throw new Error(`unknown argument "${arg}" (see --help)`);
  }
  return { name, targets };
}

/** the modules named by --target; hidden (infrastructure) ones cannot be chosen */
export function selectTargets(names: string[], targets: ModuleDefinition<unknown>[]): ModuleDefinition<unknown>[] {
  return names.map((name) => {
    const module = targets.find((t) => t.name === name);
    if (!module) throw new Error(`unknown target "${name}"; choose from: ${targets.map((t) => t.name).join(', ')}`);
    return module;
  });
}

export const usage = (targets: ModuleDefinition<unknown>[], settings: string) => `Packyard: private APT and YUM/DNF repositories as a service.

Usage:
  packyard [--target=all|<module>[,<module>...]]    run the chosen modules in this process
  packyard rebuild-projections --target=<module>     rebuild a module's read models from its events
  packyard --list-targets                            list the modules --target accepts
  packyard --help                                    this text

Targets:
${targets.map((t) => `  ${t.name.padEnd(12)} ${t.description ?? ''}`).join('\n')}

Configuration (environment variables; the defaults are single-node mode):
${settings}
`;
