import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
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

/** the lowest local port the kernel gives outgoing connections (Linux), or its default */
function ephemeralPortsFrom(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const LOWEST_PORT = 10_000;
const handedOut = new Set<number>();

const listensOn = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

/**
 * A loopback port free right now, for servers that must be told their port before they
 * start (or keep it across a restart). Chosen below the kernel's range for outgoing
 * connections: a port the kernel picked for a probe is free again once the probe closes,
 * and until the server binds it any outgoing connection on the machine can take it as its
 * local port (a cluster start makes hundreds, beside other suites), which fails the
 * server's listen for as long as that connection lives. Never the same port twice in a run's
 * process.
 */
export async function freePort(): Promise<number> {
  const ceiling = ephemeralPortsFrom() - 1;
  for (let attempt = 0; ceiling > LOWEST_PORT && attempt < 200; attempt++) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (ceiling - LOWEST_PORT + 1));
    if (handedOut.has(port)) continue;
    // taken before the probe, so that calls at the same time never get the same port
    handedOut.add(port);
    if (await listensOn(port)) return port;
    handedOut.delete(port);
  }
  throw new Error(`no free loopback port between ${LOWEST_PORT} and the ephemeral range`);
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
