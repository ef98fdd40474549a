/**
 * Delivery edge against nginx: the same published files, the same load generator (wrk),
 * the same HTTP Basic credentials, in one run.
 * Run: npx tsx loadtests/delivery.bench.ts   (BENCH_SECONDS=5 per run, BENCH_ROUNDS=2 runs per row and server)
 *
 * Delivery: the real single-node program (startPackyard), a DEB repository with a
 * repository token, 200 small packages, a 10 KB and a 50 MB package uploaded through the API and published
 * by the pipeline; the token is checked by the token module (its verdict cached by the
 * edge). nginx: Debian's package, own config on 127.0.0.1 in a temp dir, `auth_basic`
 * with an {SSHA} htpasswd entry for the same token, serving the files downloaded from
 * delivery under the same paths.
 *
 * Rows: InRelease, Packages.gz, the 10 KB package, 304 for If-None-Match (InRelease) and
 * the 50 MB package (MB/s). wrk -t2 -c64 for every row but the 50 MB one (-t2 -c8).
 */
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startPackyard } from '@packyard/testing';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
// rows alternate between the servers and each keeps its best round: on a shared machine a
// burst of someone else's work then cannot decide a row against one side only
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
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

/** waits (at most 60 s) until the process uses under a fifth of a core: the pipeline's follow-up work is done */
async function untilIdle(pid: number): Promise<void> {
  const cpuTicks = async () => {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  for (let second = 0; second < 60; second++) {
    const before = await cpuTicks();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // clock ticks are 1/100 s
    if ((await cpuTicks()) - before < 20) return;
  }
}

interface Published {
  url: string;
  authorization: string;
  token: string;
  /** path below the distribution root → bytes, as delivery serves them */
  files: Record<'inRelease' | 'packagesGz' | 'small' | 'large', { path: string; bytes: Buffer }>;
  close(): Promise<void>;
}

interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerSecond: number;
  non2xx: number;
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

async function startDelivery(dir: string): Promise<Published> {
  const packyard = await startPackyard();
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
    for (let i = 0; i < FILLER_PACKAGES; i++) fillers.push(await buildPackage(dir, `bench-filler-${i}`, 64));
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
    await untilIdle(packyard.child.pid!);
    return { url, authorization, token, files, close: () => packyard.dispose() };
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
  connections: number;
  throughput?: boolean;
}

const rows = (files: Published['files']): Row[] => [
  { name: `InRelease (${(files.inRelease.bytes.length / 1024).toFixed(1)} KB)`, path: files.inRelease.path, connections: 64 },
  { name: `Packages.gz (${(files.packagesGz.bytes.length / 1024).toFixed(1)} KB)`, path: files.packagesGz.path, connections: 64 },
  { name: `package ${Math.round(files.small.bytes.length / 1024)} KB`, path: files.small.path, connections: 64 },
  { name: '304 If-None-Match (InRelease)', path: files.inRelease.path, conditional: true, connections: 64 },
  { name: `package ${Math.round(files.large.bytes.length / 1024 ** 2)} MB`, path: files.large.path, connections: 8, throughput: true },
];

async function measure(server: { url: string }, row: Row, authorization: string): Promise<WrkResult> {
  const url = `${server.url}/${row.path}`;
  const headers: Record<string, string> = { Authorization: authorization };
  if (row.conditional) {
    const response = await fetch(url, { method: 'HEAD', headers: { authorization } });
    headers['If-None-Match'] = response.headers.get('etag')!;
    const check = await fetch(url, { headers: { authorization, 'if-none-match': headers['If-None-Match'] } });
    if (check.status !== 304) throw new Error(`${url} answered ${check.status} to If-None-Match`);
  }
  const result = await wrk(url, headers, row.connections);
  if (result.non2xx > 0 && !row.conditional) throw new Error(`${url}: ${result.non2xx} responses were not 2xx/3xx`);
  return result;
}

const format = (row: Row, result: WrkResult) =>
  row.throughput
    ? `${(result.bytesPerSecond / 1024 ** 2).toFixed(0).padStart(7)} MB/s   p50 ${result.p50Ms.toFixed(2).padStart(7)} ms  p99 ${result.p99Ms.toFixed(2).padStart(7)} ms`
    : `${result.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${result.p50Ms.toFixed(2).padStart(7)} ms  p99 ${result.p99Ms.toFixed(2).padStart(7)} ms`;

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'packyard-delivery-bench-'));
  // nginx's workers run as nobody: they must be able to read the files and htpasswd
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'delivery'));
  const delivery = await startDelivery(join(dir, 'delivery'));
  const nginx = await startNginx(join(dir, 'nginx'), delivery).catch(async (error) => {
    await delivery.close();
    throw error;
  });
  let failed = false;
  try {
    console.log(`wrk -t2, best of ${ROUNDS} runs of ${SECONDS}s per row and server; HTTP Basic with the same repository token on both\n`);
    // the JIT warms up on the edge before anything is measured
    await wrk(`${delivery.url}/${delivery.files.inRelease.path}`, { Authorization: delivery.authorization }, 64);
    for (const row of rows(delivery.files)) {
      const best = (a: WrkResult | undefined, b: WrkResult) => (!a || (row.throughput ? b.bytesPerSecond > a.bytesPerSecond : b.requestsPerSecond > a.requestsPerSecond) ? b : a);
      let ours: WrkResult | undefined;
      let theirs: WrkResult | undefined;
      for (let round = 0; round < ROUNDS; round++) {
        ours = best(ours, await measure(delivery, row, delivery.authorization));
        theirs = best(theirs, await measure(nginx, row, delivery.authorization));
      }
      if (!ours || !theirs) throw new Error('BENCH_ROUNDS must be at least 1');
      const ratio = row.throughput ? ours.bytesPerSecond / theirs.bytesPerSecond : ours.requestsPerSecond / theirs.requestsPerSecond;
      failed ||= ratio < 0.5;
      console.log(`${row.name} (-c${row.connections})`);
      console.log(`  delivery  ${format(row, ours)}`);
      console.log(`  nginx     ${format(row, theirs)}`);
      console.log(`  ratio     ${ratio.toFixed(2)}x ${ratio >= 0.5 ? '(target ≥ 0.5x met)' : '(BELOW the 0.5x target)'}\n`);
    }
  } finally {
    await nginx.close();
    await delivery.close();
    await rm(dir, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
