import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CallerAssertions } from '@packyard/platform';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
export const PACKYARD_BIN = join(REPO_ROOT, 'services', 'server', 'bin', 'packyard.mjs');

export interface RunningPackyard {
  url: string;
  port: number;
  grpcAddress: string;
  /** where the process serves /metrics (its own port, apart from the public one) */
  metricsUrl: string;
  dataDir: string;
  /** signs caller assertions with the process's INTERNAL_AUTH_KEY, to call its gRPC services as another module would */
  callerAssertions(): CallerAssertions;
  child: ChildProcess;
  /** everything the process printed so far (JSON log lines) */
  output(): string;
  /** sends the signal and resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** stops and deletes the data folder (unless it was given) */
  dispose(): Promise<void>;
}

export interface StartOptions {
  /** the program to run (default: the source entrypoint through tsx) */
  bin?: string;
  targets?: string[];
  env?: Record<string, string>;
  dataDir?: string;
  /** how long to wait for the HTTP server to listen */
  timeoutMs?: number;
  /** wait for /api/actuator/health to answer 200 (default true) */
  waitForHealth?: boolean;
  /** options for node itself, before the program (V8 flags NODE_OPTIONS refuses, such as --trace-gc) */
  nodeArgs?: string[];
  /** every process of the program (edge workers included: they inherit node's options) writes a V8 CPU profile here */
  cpuProfileDir?: string;
  /**
   * EDGE_WORKERS: 0 by default here, so the main process serves the port. A test program
   * would otherwise fork a worker per CPU, and the suite runs several programs at once on
   * a CI runner of two cores. The suites of the workers, of apt/dnf, of restarts and of the
   * bundle ask for them ('program default' leaves the setting unset, as `npm start` does).
   */
  edgeWorkers?: number | 'program default';
}

/**
 * Starts the real single-node program (or chosen targets) as a child process on free
 * ports with its own data folder, and resolves once it listens (and is healthy).
 */
export async function startPackyard(options: StartOptions = {}): Promise<RunningPackyard> {
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'packyard-test-'));
  const args = [options.bin ?? PACKYARD_BIN, ...(options.targets ? [`--target=${options.targets.join(',')}`] : [])];
  const env: Record<string, string | undefined> = { ...process.env, PORT: '0', GRPC_PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', EDGE_WORKERS: String(options.edgeWorkers ?? 0), ...options.env };
  if (options.edgeWorkers === 'program default') delete env.EDGE_WORKERS;
  const profiling = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...profiling, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

  const found = (pattern: RegExp) => pattern.exec(output);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let port = 0;
  let grpcAddress = '';
  let metricsPort = 0;
  while (!port || !grpcAddress || !metricsPort) {
    if (child.exitCode !== null) throw new Error(`packyard exited with ${child.exitCode} before listening:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`packyard did not listen in time:\n${output}`);
    }
    port = Number(found(/"port":(\d+),"msg":"HTTP server listening"/)?.[1] ?? 0);
    grpcAddress = found(/"address":"([^"]+)","msg":"gRPC server listening"/)?.[1] ?? '';
    metricsPort = Number(found(/"port":(\d+),"host":"[^"]*","msg":"metrics server listening"/)?.[1] ?? 0);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = `http://127.0.0.1:${port}`;
  if (options.waitForHealth ?? true) {
    while (true) {
      const response = await fetch(`${url}/api/actuator/health`).catch(() => undefined);
      if (response?.status === 200) break;
      if (child.exitCode !== null) throw new Error(`packyard exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`packyard did not become healthy in time:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return {
    url,
    port,
    grpcAddress,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    dataDir,
    callerAssertions: () => {
      const key = options.env?.INTERNAL_AUTH_KEY ?? readFileSync(join(dataDir, 'internal-auth.key'), 'utf8');
      return new CallerAssertions(Buffer.from(key.trim(), 'base64'));
    },
    child,
    output: () => output,
    stop,
    dispose: async () => {
      await stop();
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// one home for it: the cluster and radosgw need it too
export { freePort } from './servers/daemon';
