import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@packyard/testing';
import { freePort } from '@packyard/testing/servers/daemon';
import { startKafkaBroker, type RunningKafkaBroker } from '@packyard/testing/servers/kafka-broker.server';
import { startRadosgw, type RunningRadosgw } from '@packyard/testing/servers/radosgw.server';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin.proxy';

/**
 * The processes of the local cluster: every module its own process, two replicas of the
 * two that scale out (gateway: stateless; delivery: a read model per replica, fed by
 * every event) and of repository (two processes on one store sharing the builds by a lease
 * per repository). The others keep a SQLite event store of their own and run once.
 */
export const CLUSTER_PROCESSES = [
  { name: 'identity', target: 'identity' },
  { name: 'workspace', target: 'workspace' },
  { name: 'repository-1', target: 'repository' },
  { name: 'repository-2', target: 'repository' },
  { name: 'artifact', target: 'artifact' },
  { name: 'token', target: 'token' },
  { name: 'signing', target: 'signing' },
  { name: 'delivery-1', target: 'delivery' },
  { name: 'delivery-2', target: 'delivery' },
  { name: 'gateway-1', target: 'gateway' },
  { name: 'gateway-2', target: 'gateway' },
] as const;

export type ClusterProcessName = (typeof CLUSTER_PROCESSES)[number]['name'];

/** the processes of a module sharing one store (the SQLite files under one folder) */
const dataFolderOf = (spec: (typeof CLUSTER_PROCESSES)[number]) => (spec.target === 'repository' ? 'repository' : spec.name);

export interface ClusterOptions {
  /** the cluster keeps its files under `<dataDir>/cluster` (emptied at start: radosgw keeps blobs in memory) */
  dataDir: string;
  /** console and API (0: any free port) */
  port: number;
  /** apt and dnf (0: any free port) */
  aptPort: number;
  host?: string;
  /** the program each process runs (default: the bundle, built first) */
  bin?: string;
  logLevel?: string;
  /** every line a process prints, as it prints it */
  onLine?: (process: string, line: string) => void;
  timeoutMs?: number;
  /** servers already running (a test run's shared ones); by default the cluster starts its own */
  servers?: { kafkaBrokers: string[]; s3: { endpoint: string; accessKey: string; secretKey: string } };
}

export interface ClusterProcess {
  name: ClusterProcessName;
  target: string;
  /** HTTP: health, and the API (gateway) or apt/yum (delivery) */
  url: string;
  grpcAddress: string;
  metricsUrl: string;
  pid(): number | undefined;
  /** how many times the cluster restarted it after it exited */
  restarts(): number;
  output(): string;
  /** resident memory now, from /proc */
  rssBytes(): number | undefined;
}

export interface RunningCluster {
  consoleUrl: string;
  aptUrl: string;
  processes: ClusterProcess[];
  process(name: ClusterProcessName): ClusterProcess;
  /** signals a process; like Kubernetes, the cluster starts it again once it exited */
  kill(name: ClusterProcessName, signal: NodeJS.Signals): void;
  /** resolves once every process (or the named one) answers readiness with 200 */
  healthy(name?: ClusterProcessName, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const BUNDLE = join(REPO_ROOT, 'services', 'server', 'dist', 'main.mjs');
const RESTART_DELAY_MS = 500;

const rssOf = (pid: number | undefined): number | undefined => {
  if (!pid) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
};

async function waitUntil(what: string, check: () => Promise<boolean>, deadline: number) {
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Starts the Kafka-protocol broker (librdkafka's mock cluster), radosgw as S3 and every
 * module as its own process, wired by `<MODULE>_GRPC_ADDR`, `BUS=kafka` and `BLOBS=s3`,
 * with a round-robin proxy in front of the gateways (console and API) and one in front of
 * the delivery replicas (apt and dnf).
 */
export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const host = options.host ?? '127.0.0.1';
  const root = join(options.dataDir, 'cluster');
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const bin = options.bin ?? (await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'services', 'server', 'build.mjs')]), BUNDLE);

  let broker: RunningKafkaBroker | undefined;
  let radosgw: RunningRadosgw | undefined;
  const proxies: RoundRobinProxy[] = [];
  const children = new Map<ClusterProcessName, ChildProcess>();
  let stopping = false;
  const outputs = new Map<ClusterProcessName, string>();
  const restarts = new Map<ClusterProcessName, number>();

  const stop = async () => {
    stopping = true;
    const exits = [...children.values()].map((child) =>
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve())),
    );
    for (const child of children.values()) child.kill('SIGTERM');
    const killer = setTimeout(() => [...children.values()].forEach((child) => child.kill('SIGKILL')), 6_000);
    await Promise.all(exits);
    clearTimeout(killer);
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await Promise.all([broker?.stop(), radosgw?.stop()]);
  };

  try {
    if (!options.servers) [broker, radosgw] = await Promise.all([startKafkaBroker(), startRadosgw({ dir: join(root, 'radosgw') })]);
    const kafkaBrokers = options.servers?.kafkaBrokers ?? broker!.brokers;
    const s3 = options.servers?.s3 ?? radosgw!;
    const consoleProxyPort = options.port || (await freePort());
    const aptProxyPort = options.aptPort || (await freePort());
    const aptUrl = `http://${host}:${aptProxyPort}`;
    const ports = new Map<ClusterProcessName, { http: number; grpc: number; metrics: number }>();
    for (const { name } of CLUSTER_PROCESSES) ports.set(name, { http: await freePort(), grpc: await freePort(), metrics: await freePort() });
    const grpcOf = (target: string) =>
      CLUSTER_PROCESSES.filter((p) => p.target === target)
        .map((p) => `${host}:${ports.get(p.name)!.grpc}`)
        .join(',');

    const shared: NodeJS.ProcessEnv = {
      HOST: host,
      GRPC_HOST: host,
      METRICS_HOST: host,
      BUS: 'kafka',
      KAFKA_BROKERS: kafkaBrokers.join(','),
      // a process killed and started again rejoins its groups after this, not Kafka's default 30 s
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      KAFKA_MAX_WAIT_MS: '500',
      BLOBS: 's3',
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      // a bucket of its own: a shared radosgw serves other suites too
      S3_BUCKET: `packyard-cluster-${randomBytes(4).toString('hex')}`,
      // one installation: one key for calls between modules, one for sealed secrets
      INTERNAL_AUTH_KEY: randomBytes(32).toString('base64'),
      PACKYARD_MASTER_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: options.logLevel ?? 'info',
      ...Object.fromEntries(['identity', 'workspace', 'repository', 'artifact', 'token', 'signing', 'delivery'].map((target) => [`${target.toUpperCase()}_GRPC_ADDR`, grpcOf(target)])),
    };

    /** the last 256 KiB of a process's output, for the error of a start that timed out */
    const keepLine = (name: ClusterProcessName, line: string) => outputs.set(name, ((outputs.get(name) ?? '') + line + '\n').slice(-256 * 1024));
    const spawnProcess = (spec: (typeof CLUSTER_PROCESSES)[number]) => {
      const own = ports.get(spec.name)!;
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...shared,
        PORT: String(own.http),
        GRPC_PORT: String(own.grpc),
        METRICS_PORT: String(own.metrics),
        DATA_DIR: join(root, dataFolderOf(spec)),
        ...(spec.target === 'delivery' ? { DELIVERY_REPLICA_ID: spec.name, PUBLIC_URL: aptUrl } : {}),
        ...(spec.target === 'repository' ? { REPOSITORY_REPLICA_ID: spec.name } : {}),
      };
      const child = spawn(process.execPath, [bin, `--target=${spec.target}`], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.set(spec.name, child);
      let partial = '';
      const onData = (chunk: Buffer) => {
        const text = partial + chunk.toString('utf8');
        const lines = text.split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          keepLine(spec.name, line);
          options.onLine?.(spec.name, line);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        if (stopping) return;
        const line = `${spec.name} exited (${signal ?? code}); starting it again`;
        keepLine(spec.name, `[cluster] ${line}`);
        options.onLine?.('cluster', line);
        restarts.set(spec.name, (restarts.get(spec.name) ?? 0) + 1);
        setTimeout(() => !stopping && spawnProcess(spec), RESTART_DELAY_MS).unref();
      });
    };
    for (const spec of CLUSTER_PROCESSES) spawnProcess(spec);

    const urlOf = (name: ClusterProcessName) => `http://${host}:${ports.get(name)!.http}`;
    const backendsOf = (target: string) => CLUSTER_PROCESSES.filter((p) => p.target === target).map((p) => urlOf(p.name));
    proxies.push(await startRoundRobinProxy({ port: consoleProxyPort, host, backends: backendsOf('gateway') }));
    proxies.push(await startRoundRobinProxy({ port: aptProxyPort, host, backends: backendsOf('delivery') }));

    const processes: ClusterProcess[] = CLUSTER_PROCESSES.map((spec) => ({
      name: spec.name,
      target: spec.target,
      url: urlOf(spec.name),
      grpcAddress: `${host}:${ports.get(spec.name)!.grpc}`,
      metricsUrl: `http://${host}:${ports.get(spec.name)!.metrics}/metrics`,
      pid: () => children.get(spec.name)?.pid,
      restarts: () => restarts.get(spec.name) ?? 0,
      output: () => outputs.get(spec.name) ?? '',
      rssBytes: () => rssOf(children.get(spec.name)?.pid),
    }));
    const processNamed = (name: ClusterProcessName) => processes.find((p) => p.name === name)!;
    const healthy = async (name?: ClusterProcessName, timeoutMs = 120_000) => {
      const until = Date.now() + timeoutMs;
      // what each process last answered, so that a timeout says which module held the rest
      const lastAnswers = new Map<ClusterProcessName, string>();
      const ready = async (p: ClusterProcess) => {
        try {
          const answer = await fetch(`${p.url}/api/actuator/health`, { signal: AbortSignal.timeout(2_000) });
          lastAnswers.set(p.name, `${answer.status} ${await answer.text()}`);
          return answer.status === 200;
        } catch (error) {
          lastAnswers.set(p.name, (error as Error).message);
          return false;
        }
      };
      const waiting = name ? [processNamed(name)] : processes;
      const results = await Promise.allSettled(waiting.map((p) => waitUntil(`${p.name} to be ready`, () => ready(p), until)));
      const notReady = waiting.filter((_, index) => results[index].status === 'rejected');
      if (notReady.length > 0) {
        throw new Error(`timed out waiting for ${notReady.map((p) => `${p.name} to be ready (last answer: ${lastAnswers.get(p.name) ?? 'none'})`).join('; ')}`);
      }
    };
    await healthy(undefined, Math.max(deadline - Date.now(), 1_000));
    return {
      consoleUrl: `http://${host}:${consoleProxyPort}`,
      aptUrl,
      processes,
      process: processNamed,
      kill: (name, signal) => void children.get(name)?.kill(signal),
      healthy,
      stop,
    };
  } catch (error) {
    // a process that never said it started is the likely culprit: its tail comes first
    const started = (output: string) => output.includes('"msg":"Packyard started"');
    const tails = [...outputs]
      .sort(([, a], [, b]) => Number(started(a)) - Number(started(b)))
      .map(([name, output]) => `--- ${name}${started(output) ? '' : ' (never started)'}\n${output.split('\n').slice(-15).join('\n')}`)
      .join('\n');
    await stop();
    throw new Error(`the cluster did not start: ${(error as Error).message}\n${tails}`, { cause: error });
  }
}

