import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/** a long-running child process of a test run, with what it printed */
export interface Daemon {
  readonly name: string;
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited */
  stop(graceMs?: number): Promise<void>;
}

export function spawnDaemon(name: string, program: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Daemon {
  // a test run killed before its teardown must not leave servers behind: setpriv (util-linux)
  // asks the kernel to kill it when this process dies, then execs the program in place
  const [command, commandArgs] = missingPrograms(['setpriv']).length === 0 ? ['setpriv', ['--pdeathsig', 'KILL', program, ...args]] : [program, args];
  const child = spawn(command, commandArgs, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-64 * 1024);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  child.stdin!.on('error', () => undefined);
  child.on('error', (error) => keep(Buffer.from(`${name}: ${error.message}\n`)));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    name,
    child,
    output: () => output,
    stop: async (graceMs = 5_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** a loopback port free right now, for servers that must be told their port before they start */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** polls `check` until it returns a value; fails with `what` and the daemons' output past the deadline or when one exits */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, deadline: number, daemons: readonly Daemon[] = []): Promise<T> {
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    const dead = daemons.find((daemon) => daemon.child.exitCode !== null || daemon.child.signalCode !== null);
    if (dead) throw new Error(`${dead.name} exited (${dead.child.exitCode ?? dead.child.signalCode}) while waiting for ${what}:\n${dead.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${daemons.map((d) => `--- ${d.name}\n${d.output()}`).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Why a test that runs `programs` cannot run here (with the Debian packages that bring
 * them), or undefined when all are on PATH: the reason a suite skips with.
 */
export function toolsUnavailable(programs: readonly string[], packages: readonly string[]): string | undefined {
  const missing = missingPrograms(programs);
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} not installed (Debian packages ${packages.join(' ')}; as root, node .ci/debian-tools.mjs installs them)`;
}

/** the programs among `programs` that are not on PATH */
export function missingPrograms(programs: readonly string[]): string[] {
  const directories = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const found = (program: string) =>
    directories.some((directory) => {
      try {
        accessSync(join(directory, program), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  return programs.filter((program) => !found(program));
}
