/**
 * Delivery edge against nginx: the same published files, the same load generator (wrk),
 * the same HTTP Basic credentials, in one run.
 * Run: npx tsx loadtests/delivery.bench.ts [--seconds 5] [--rounds 2] [--no-build]   (--help;
 * BENCH_PROFILE_DIR: the program's processes, edge workers included, write V8 CPU profiles there)
 *
 * Delivery: the whole single-node program as `npm start` runs it (it builds first, as
 * `npm start` does, and runs the bundle services/server/dist/main.mjs), a DEB repository
 * with a repository token, 200 small packages, a 10 KB and a 50 MB package uploaded through
 * the API and published by the pipeline; the token is checked by the token module (its
 * verdict cached by the edge). Nothing is measured before the program has gone idle: its
 * CPU time, read from /proc, stays under 5% of a core for 3 s in a row. nginx: Debian's
 * package, own config on 127.0.0.1 in a temp dir, `auth_basic` with an {SSHA} htpasswd
 * entry for the same token, serving the files downloaded from delivery under the same paths.
 *
 * Rows: InRelease, Packages.gz, the 10 KB package, 304 for If-None-Match (InRelease),
 * InRelease with 1,000 connections, a 1 MiB `Range` out of the middle of the 50 MB package
 * (206, as apt asks when it resumes) and the whole 50 MB package (MB/s). Each row prints
 * throughput, p50 and p99 latency (wrk --latency) of both servers, the ratio to nginx, and
 * the machine's load: the 1-minute load average before the row, and the run queue (tasks
 * running, from /proc/loadavg) sampled while the row runs. Targets (issue 18): small rows
 * and the 304 row ≥ 0.9× nginx, the 50 MB row ≥ 0.8×, p99 within 2× of nginx's; exits 1
 * when a row misses its target.
 *
 * Then, where radosgw is installed (services/lib/testing/src/servers), the program again
 * with BLOBS=s3 and S3_PRESIGN_DOWNLOADS: the edge's 302s for the 50 MB package, and the
 * package from its presigned URL (radosgw sends it) against nginx. Those rows have no target:
 * the edge's part is the 302, and radosgw's rate is not the edge's.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { REPO_ROOT, startPackyard } from '@packyard/testing';
import { radosgwUnavailable, startRadosgw } from '@packyard/testing/servers/radosgw.server';

const USAGE = `npx tsx loadtests/delivery.bench.ts [--seconds 5] [--rounds 2] [--only TEXT] [--background 0] [--no-build] [--no-s3]
  --seconds N   length of each wrk run (default 5)
  --rounds N    runs per row and server, alternating; each keeps its best (default 2)
  --only TEXT   only the rows whose name contains TEXT (e.g. --only "1,000")
  --background N  CPU-bound processes (a busy loop each, at normal priority) running beside both servers
                for every row, started once the program is idle (default 0; issue 18 asks for 1: no row below 0.7x)
  --no-build    run the bundle already built instead of building it first as npm start does
  --no-s3       leave out the presigned S3 rows (radosgw; they are skipped by themselves where it is not installed)`;
const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '2' }, background: { type: 'string', default: '0' }, only: { type: 'string' }, 'no-build': { type: 'boolean' }, 'no-s3': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const run = promisify(execFile);
const SECONDS = Number(args.seconds);
// rows alternate between the servers and each keeps its best round: on a shared machine a
// burst of someone else's work then cannot decide a row against one side only
const ROUNDS = Number(args.rounds);
const BACKGROUND = Number(args.background);
if (!(SECONDS >= 1) || !(ROUNDS >= 1) || !Number.isInteger(BACKGROUND) || BACKGROUND < 0) {
  console.error(`--seconds and --rounds must be at least 1, --background a whole number\n${USAGE}`);
  process.exit(2);
}

/** `count` processes that each keep a core busy until stopped: the background load of issue 18's last target */
function cpuBurners(count: number): () => void {
  const burners = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => burners.forEach((burner) => burner.kill('SIGKILL'));
}
const BUNDLE = join(REPO_ROOT, 'services/server/dist/main.mjs');
const REPOSITORY = '/deb/bench/tools/debian';
const FILLER_PACKAGES = 200;

/** a real .deb with a payload of `bytes` random bytes (random: gzip cannot shrink it, only the tar padding) */
async function buildPackage(dir: string, name: string, bytes: number): Promise<string> {
  const root = join(dir, `${name}-root`);
  await mkdir(join(root, 'DEBIAN'), { recursive: true });
  await mkdir(join(root, 'usr/share', name), { recursive: true });
  await writeFile(join(root, 'usr/share', name, 'payload'), randomBytes(bytes));
  await writeFile(join(root, 'DEBIAN/control'), `Package: ${name}\nVersion: 1.0\nArchitecture: all\nMaintainer: Bench <bench@example.com>\nDescription: benchmark payload\n`);
  const file = join(dir, `${name}_1.0_all.deb`);
  await run('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', root, file]);
  return file;
}

const IDLE_SECONDS = 3;
// clock ticks are 1/100 s: 5 ticks in a second is 5% of a core
const IDLE_TICKS_PER_SECOND = 5;

/**
 * Waits (at most 180 s) until the process has used under 5% of a core for 3 s in a row:
 * the pipeline's follow-up work (indices, signing, projections) is done. Returns the CPU
 * share of its last second and how long it took.
 */
async function untilIdle(pid: number): Promise<{ cpuPercent: number; seconds: number; idle: boolean }> {
  const cpuTicks = async () => {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    // utime and stime
    return Number(fields[11]) + Number(fields[12]);
  };
  let quietSeconds = 0;
  let ticks = 0;
  for (let second = 1; second <= 180; second++) {
    const before = await cpuTicks();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    ticks = (await cpuTicks()) - before;
    quietSeconds = ticks < IDLE_TICKS_PER_SECOND ? quietSeconds + 1 : 0;
    if (quietSeconds >= IDLE_SECONDS) return { cpuPercent: ticks, seconds: second, idle: true };
  }
  return { cpuPercent: ticks, seconds: 180, idle: false };
}

/** the run queue (tasks running now, over all cores), sampled every 250 ms until `until` settles */
async function runQueueDuring<T>(until: Promise<T>): Promise<{ result: T; meanRunning: number; maxRunning: number }> {
  const samples: number[] = [];
  const sample = async () => samples.push(Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[3].split('/')[0]));
  const timer = setInterval(() => void sample(), 250);
  try {
    const result = await until;
    return { result, meanRunning: samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length), maxRunning: Math.max(0, ...samples) };
  } finally {
    clearInterval(timer);
  }
}

interface Published {
  url: string;
  authorization: string;
  token: string;
  /** path below the distribution root → bytes, as delivery serves them */
  files: Record<'inRelease' | 'packagesGz' | 'small' | 'large', { path: string; bytes: Buffer }>;
  metricsUrl: string;
  close(): Promise<void>;
}

interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerSecond: number;
  non2xx: number;
  /** how the edge workers shared the connections during the run (ours only) */
  balance?: string;
}

const unitMs: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
const unitBytes: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

// asynchronously: the delivery server under test runs in this very process
async function wrk(url: string, headers: Record<string, string>, connections: number): Promise<WrkResult> {
  const args = ['-t2', `-c${connections}`, `-d${SECONDS}s`, '--latency', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url];
  const { stdout: output } = await promisify(execFile)('wrk', args, { encoding: 'utf8' });
  const latency = (percentile: string) => {
    const match = new RegExp(`^\\s+${percentile}%\\s+([\\d.]+)(us|ms|s|m)`, 'm').exec(output);
    return match ? Number(match[1]) * unitMs[match[2]] : NaN;
  };
  const transfer = /Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/.exec(output);
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN),
    p50Ms: latency('50'),
    p99Ms: latency('99'),
    bytesPerSecond: transfer ? Number(transfer[1]) * unitBytes[transfer[2]] : NaN,
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0),
  };
}

/** the program with `env` (its blob store), after uploads through the API, once idle; `fillers` small packages make Packages.gz a real size */
async function startDelivery(dir: string, { env = {}, fillers: fillerCount }: { env?: Record<string, string>; fillers: number }): Promise<Published> {
  const packyard = await startPackyard({ bin: BUNDLE, env, timeoutMs: 120_000, edgeWorkers: 'program default', cpuProfileDir: process.env.BENCH_PROFILE_DIR });
  try {
    const call = async <T>(path: string, init: RequestInit & { bearer?: string } = {}): Promise<T> => {
      const response = await fetch(`${packyard.url}/api/v1${path}`, {
        ...init,
        headers: { ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}), ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}) },
      });
      if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as T;
    };
    const { idToken } = await call<{ idToken: string }>('/auth/register', { method: 'POST', body: JSON.stringify({ email: 'bench@example.com', password: 'benchmark password' }) });
    const workspace = await call<{ id: string }>('/workspaces', { method: 'POST', bearer: idToken, body: JSON.stringify({ name: 'Bench', slug: 'bench' }) });
    const repository = await call<{ id: string }>(`/workspaces/${workspace.id}/repos`, {
      method: 'POST',
      bearer: idToken,
      body: JSON.stringify({ name: 'tools', kind: 'DEB', codename: 'bookworm', component: 'main' }),
    });
    const { token } = await call<{ token: string }>(`/repos/${repository.id}/tokens`, { method: 'POST', bearer: idToken, body: JSON.stringify({ name: 'bench' }) });
    const upload = async (file: string, query = '') => {
      const form = new FormData();
      form.set('distribution', 'debian/bookworm');
      form.set('file', new Blob([await readFile(file)]), basename(file));
      await call(`/workspaces/${workspace.id}/repos/${repository.id}/upload${query}`, { method: 'POST', bearer: idToken, body: form });
    };
    // filler packages give Packages.gz the size of a small real repository's
    const fillers = [];
    for (let i = 0; i < fillerCount; i++) fillers.push(await buildPackage(dir, `bench-filler-${i}`, 64));
    for (let i = 0; i < fillers.length; i += 10) await Promise.all(fillers.slice(i, i + 10).map((file) => upload(file)));
    await upload(await buildPackage(dir, 'bench-small', 9 * 1024), '?wait=published');
    await upload(await buildPackage(dir, 'bench-large', 50 * 1024 * 1024), '?wait=published');
    const authorization = `Basic ${Buffer.from(`${token}:`).toString('base64')}`;
    const url = `${packyard.url}${REPOSITORY}`;
    const fetchFile = async (path: string) => {
      const response = await fetch(`${url}/${path}`, { headers: { authorization } });
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    };
    // measure a settled program: the same InRelease for 3 s means publishing has finished
    let inRelease = await fetchFile('dists/bookworm/InRelease');
    for (let stable = 0; stable < 6; ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const next = await fetchFile('dists/bookworm/InRelease');
      stable = next.equals(inRelease) ? stable + 1 : 0;
      inRelease = next;
    }
    const packagesPath = /\s(main\/binary-[a-z0-9]+\/Packages\.gz)$/m.exec(inRelease.toString())?.[1];
    if (!packagesPath) throw new Error('no Packages.gz in InRelease');
    const packages = await fetchFile(`dists/bookworm/${packagesPath.replace(/\.gz$/, '')}`);
    const poolPath = (name: string) => new RegExp(`^Filename: (.*${name}.*)$`, 'm').exec(packages.toString())?.[1] ?? '';
    const files = {
      inRelease: { path: 'dists/bookworm/InRelease', bytes: inRelease },
      packagesGz: { path: `dists/bookworm/${packagesPath}`, bytes: await fetchFile(`dists/bookworm/${packagesPath}`) },
      small: { path: poolPath('bench-small'), bytes: await fetchFile(poolPath('bench-small')) },
      large: { path: poolPath('bench-large'), bytes: await fetchFile(poolPath('bench-large')) },
    };
    const idle = await untilIdle(packyard.child.pid!);
    console.log(
      idle.idle
        ? `program idle after ${idle.seconds} s (under ${IDLE_TICKS_PER_SECOND}% of a core for ${IDLE_SECONDS} s; last second ${idle.cpuPercent}%)`
        : `program NOT idle after ${idle.seconds} s (last second ${idle.cpuPercent}% of a core): measuring anyway`,
    );
    return { url, authorization, token, files, metricsUrl: packyard.metricsUrl, close: () => packyard.dispose() };
  } catch (error) {
    await packyard.dispose();
    throw error;
  }
}

async function startNginx(dir: string, published: Published): Promise<{ url: string; close: () => Promise<void> }> {
  const root = join(dir, 'www');
  for (const file of Object.values(published.files)) {
    const target = join(root, REPOSITORY, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.bytes);
  }
  const salt = randomBytes(8);
  const ssha = Buffer.concat([createHash('sha1').update('').update(salt).digest(), salt]).toString('base64');
  await writeFile(join(dir, 'htpasswd'), `${published.token}:{SSHA}${ssha}\n`);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  await writeFile(
    join(dir, 'nginx.conf'),
    `worker_processes auto;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${dir}/tmp;
  proxy_temp_path ${dir}/tmp;
  fastcgi_temp_path ${dir}/tmp;
  uwsgi_temp_path ${dir}/tmp;
  scgi_temp_path ${dir}/tmp;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location /deb/ {
      auth_basic "Packyard";
      auth_basic_user_file ${dir}/htpasswd;
    }
  }
}
`,
  );
  await mkdir(join(dir, 'tmp'), { recursive: true });
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'inherit' });
  const url = `http://127.0.0.1:${port}${REPOSITORY}`;
  const close = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGQUIT');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  for (let i = 0; ; i++) {
    const response = await fetch(`${url}/${published.files.inRelease.path}`, { headers: { authorization: published.authorization } }).catch(() => undefined);
    if (response?.status === 200) break;
    if (i > 50) {
      await close();
      throw new Error(`nginx did not answer 200 (last status ${response?.status}); see ${dir}/error.log`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, close };
}

interface Row {
  name: string;
  path: string;
  conditional?: boolean;
  /** the answer is a 302 (wrk counts those with the errors) */
  redirect?: boolean;
  /** a `Range` header: the answer must be 206 */
  range?: string;
  connections: number;
  /** compared by bytes per second rather than requests per second */
  throughput?: boolean;
  /** the least ratio to nginx the row must reach; null: none, the row is the object store's (printed, never failed) */
  target: number | null;
}

/** where one side of a row sends its requests */
interface Target {
  url: string;
  authorization?: string;
  /** the program's /metrics: the row then says how its edge workers shared the connections */
  metricsUrl?: string;
}

const MiB = 1024 ** 2;

const rows = (files: Published['files']): Row[] => {
  const rangeStart = Math.floor(files.large.bytes.length / 2);
  return [
    { name: `InRelease (${(files.inRelease.bytes.length / 1024).toFixed(1)} KB)`, path: files.inRelease.path, connections: 64, target: 0.9 },
    { name: `Packages.gz (${(files.packagesGz.bytes.length / 1024).toFixed(1)} KB)`, path: files.packagesGz.path, connections: 64, target: 0.9 },
    { name: `package ${Math.round(files.small.bytes.length / 1024)} KB`, path: files.small.path, connections: 64, target: 0.9 },
    { name: '304 If-None-Match (InRelease)', path: files.inRelease.path, conditional: true, connections: 64, target: 0.9 },
    { name: 'InRelease, 1,000 connections', path: files.inRelease.path, connections: 1000, target: 0.9 },
    { name: `Range: 1 MiB out of the ${Math.round(files.large.bytes.length / MiB)} MB package`, path: files.large.path, range: `bytes=${rangeStart}-${rangeStart + MiB - 1}`, connections: 8, target: 0.8 },
    { name: `package ${Math.round(files.large.bytes.length / MiB)} MB`, path: files.large.path, connections: 8, throughput: true, target: 0.8 },
  ];
};

interface EdgeBalance {
  held: number[];
  given: number;
  keptUnbalanced: number;
}

/** the edge workers' connection gauges and balance counters (connection-balance.ts) */
async function edgeBalance(metricsUrl: string): Promise<EdgeBalance> {
  const text = await (await fetch(metricsUrl)).text();
  const values = (name: string) => [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\d+)$`, 'gm'))].map((match) => Number(match[1]));
  const sum = (numbers: number[]) => numbers.reduce((a, b) => a + b, 0);
  return {
    held: values('packyard_delivery_edge_connections'),
    given: sum(values('packyard_delivery_edge_connections_given_total')),
    keptUnbalanced: sum(values('packyard_delivery_edge_connections_kept_unbalanced_total')),
  };
}

async function measure(target: Target, row: Row): Promise<WrkResult> {
  const { url, authorization } = target;
  const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
  const auth: Record<string, string> = authorization ? { authorization } : {};
  if (row.conditional) {
    const response = await fetch(url, { method: 'HEAD', headers: auth });
    headers['If-None-Match'] = response.headers.get('etag')!;
    const check = await fetch(url, { headers: { ...auth, 'if-none-match': headers['If-None-Match'] } });
    if (check.status !== 304) throw new Error(`${url} answered ${check.status} to If-None-Match`);
  }
  if (row.range) {
    headers.Range = row.range;
    const check = await fetch(url, { headers: { ...auth, range: row.range } });
    const length = (await check.arrayBuffer()).byteLength;
    if (check.status !== 206 || length !== MiB) throw new Error(`${url} answered ${check.status} with ${length} bytes to Range: ${row.range}`);
  }
  const balanceBefore = target.metricsUrl && (await edgeBalance(target.metricsUrl));
  const midRun = target.metricsUrl && new Promise<EdgeBalance>((resolve) => setTimeout(() => resolve(edgeBalance(target.metricsUrl!)), (SECONDS * 1000) / 2));
  const result = await wrk(url, headers, row.connections);
  if (balanceBefore && midRun) {
    const [mid, after] = [await midRun, await edgeBalance(target.metricsUrl!)];
    result.balance = `workers held ${mid.held.join('/')} mid-run; ${after.given - balanceBefore.given} connections given to another, ${after.keptUnbalanced - balanceBefore.keptUnbalanced} kept unbalanced`;
  }
  if (result.non2xx > 0 && !row.conditional && !row.redirect) throw new Error(`${url}: ${result.non2xx} responses were not 2xx/3xx`);
  return result;
}

const format = (row: Row, result: WrkResult) =>
  `${row.throughput ? `${(result.bytesPerSecond / MiB).toFixed(0).padStart(7)} MB/s ` : `${result.requestsPerSecond.toFixed(0).padStart(7)} req/s`}  p50 ${result.p50Ms.toFixed(2).padStart(7)} ms  p99 ${result.p99Ms.toFixed(2).padStart(7)} ms`;

/** runs a row on both sides, alternating, and prints it; returns whether it met its targets (no nginx side: only printed) */
async function compare(row: Row, ours: Target, theirs: Target | undefined): Promise<boolean> {
  const best = (a: WrkResult | undefined, b: WrkResult) => (!a || (row.throughput ? b.bytesPerSecond > a.bytesPerSecond : b.requestsPerSecond > a.requestsPerSecond) ? b : a);
  let ourBest: WrkResult | undefined;
  let theirBest: WrkResult | undefined;
  // every run's p99, to show how much the tail moves between runs of the same server
  const ourP99s: number[] = [];
  const theirP99s: number[] = [];
  const loadBefore = loadavg()[0];
  const { meanRunning, maxRunning } = await runQueueDuring(
    (async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const ourRun = await measure(ours, row);
        ourP99s.push(ourRun.p99Ms);
        ourBest = best(ourBest, ourRun);
        if (!theirs) continue;
        const theirRun = await measure(theirs, row);
        theirP99s.push(theirRun.p99Ms);
        theirBest = best(theirBest, theirRun);
      }
    })(),
  );
  console.log(`${row.name} (-c${row.connections})`);
  console.log(`  delivery  ${format(row, ourBest!)}`);
  if (ourBest!.balance) console.log(`            ${ourBest!.balance}`);
  let met = true;
  if (theirBest) {
    const ratio = row.throughput ? ourBest!.bytesPerSecond / theirBest.bytesPerSecond : ourBest!.requestsPerSecond / theirBest.requestsPerSecond;
    const p99Ratio = ourBest!.p99Ms / theirBest.p99Ms;
    met = row.target === null || (ratio >= row.target && p99Ratio <= 2);
    console.log(`  nginx     ${format(row, theirBest)}`);
    const verdict = row.target === null ? '(no target: these bytes are the object store\'s, sent after the edge\'s 302)' : `${met ? '(targets met' : '(BELOW the targets'}: ≥ ${row.target}x, p99 ≤ 2x)`;
    console.log(`  ratio     ${ratio.toFixed(2)}x, p99 ${p99Ratio.toFixed(1)}x nginx's ${verdict}`);
    if (ROUNDS > 1) console.log(`  p99 runs  delivery ${ourP99s.map((ms) => ms.toFixed(1)).join(' ')} ms; nginx ${theirP99s.map((ms) => ms.toFixed(1)).join(' ')} ms`);
  }
  console.log(`  load      ${loadBefore.toFixed(2)} before; run queue ${meanRunning.toFixed(1)} mean, ${maxRunning} max during\n`);
  return met;
}

/**
 * BLOBS=s3 with S3_PRESIGN_DOWNLOADS on radosgw: the edge answers a package with a 302 to a
 * presigned URL and the object store sends the bytes. Two rows: the edge's 302s, and the
 * 50 MB package fetched from the presigned URL against nginx sending it.
 */
async function presignedRows(dir: string, nginx: Target, nginxFiles: Published['files']): Promise<boolean> {
  const unavailable = radosgwUnavailable();
  if (unavailable) {
    console.log(`presigned S3 rows skipped: ${unavailable}\n`);
    return true;
  }
  const radosgw = await startRadosgw({ dir: join(dir, 'radosgw') });
  try {
    await mkdir(join(dir, 'delivery-s3'));
    const env = { BLOBS: 's3', S3_ENDPOINT: radosgw.endpoint, S3_ACCESS_KEY: radosgw.accessKey, S3_SECRET_KEY: radosgw.secretKey, S3_BUCKET: 'packyard-bench', S3_PRESIGN_DOWNLOADS: 'true' };
    const delivery = await startDelivery(join(dir, 'delivery-s3'), { env, fillers: 0 });
    try {
      const packageUrl = `${delivery.url}/${delivery.files.large.path}`;
      const redirect = await fetch(packageUrl, { headers: { authorization: delivery.authorization }, redirect: 'manual' });
      const location = redirect.headers.get('location');
      if (redirect.status !== 302 || !location) throw new Error(`${packageUrl} answered ${redirect.status} with BLOBS=s3 and S3_PRESIGN_DOWNLOADS, not a redirect`);
      const megabytes = Math.round(delivery.files.large.bytes.length / MiB);
      const answers = await compare({ name: `BLOBS=s3: the edge's 302 for the ${megabytes} MB package (no nginx counterpart)`, path: '', redirect: true, connections: 64, target: null }, { url: packageUrl, authorization: delivery.authorization }, undefined);
      const bytes = await compare(
        { name: `BLOBS=s3: package ${megabytes} MB from its presigned URL (radosgw) against nginx`, path: '', connections: 8, throughput: true, target: null },
        { url: location },
        // nginx's htpasswd holds the first program's token, and its 50 MB package is that program's (the same size)
        { url: `${nginx.url}/${nginxFiles.large.path}`, authorization: nginx.authorization },
      );
      return answers && bytes;
    } finally {
      await delivery.close();
    }
  } finally {
    await radosgw.stop();
  }
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'packyard-delivery-bench-'));
  // nginx's workers run as nobody: they must be able to read the files and htpasswd
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'delivery'));
  if (!args['no-build']) {
    console.log('building as npm start does (npm run build) …');
    await run('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 });
  }
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build (or leave out --no-build)`);
  const delivery = await startDelivery(join(dir, 'delivery'), { fillers: FILLER_PACKAGES });
  const nginx = await startNginx(join(dir, 'nginx'), delivery).catch(async (error) => {
    await delivery.close();
    throw error;
  });
  let failed = false;
  try {
    console.log(`wrk -t2, best of ${ROUNDS} runs of ${SECONDS}s per row and server, alternating; HTTP Basic with the same repository token on both`);
    console.log(`machine: ${availableParallelism()} cores; load is the 1-minute load average before the row and the run queue (tasks running) while it ran`);
    console.log(BACKGROUND ? `background: ${BACKGROUND} CPU-bound process${BACKGROUND > 1 ? 'es' : ''} (a busy loop each) running through every row; targets: every row ≥ 0.7x\n` : 'background: none\n');
    // the JIT warms up on the edge before anything is measured
    await wrk(`${delivery.url}/${delivery.files.inRelease.path}`, { Authorization: delivery.authorization }, 64);
    const stopBurners = cpuBurners(BACKGROUND);
    try {
      for (const row of rows(delivery.files).filter((row) => !args.only || row.name.includes(args.only))) {
        const met = await compare(BACKGROUND ? { ...row, target: row.target === null ? null : Math.min(row.target, 0.7) } : row, { url: `${delivery.url}/${row.path}`, authorization: delivery.authorization, metricsUrl: delivery.metricsUrl }, { url: `${nginx.url}/${row.path}`, authorization: delivery.authorization });
        failed ||= !met;
      }
    } finally {
      stopBurners();
    }
    // the filesystem program stops first: two programs idling beside each other are not idle
    await delivery.close();
    if (!args['no-s3']) failed = !(await presignedRows(dir, { url: nginx.url, authorization: delivery.authorization }, delivery.files)) || failed;
  } finally {
    await nginx.close();
    await delivery.close();
    await rm(dir, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
