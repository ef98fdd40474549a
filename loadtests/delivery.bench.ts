/**
 * Delivery edge against nginx: the same published files, the same load generator (wrk),
 * the same HTTP Basic credentials, in one run.
 * Run: npx tsx loadtests/delivery.bench.ts   (BENCH_SECONDS=10 per row and server)
 *
 * Delivery: the production hot path — the platform's HTTP server with delivery's edge
 * handler, its published catalog projected from an IndexPublished event, blobs in the
 * filesystem blob store, the token verdict cache in front of a token check (the token
 * module's answer is cached for 4 s, so after the first request the check is in memory).
 * nginx: Debian's package, own config on 127.0.0.1 in a temp dir, `auth_basic` with an
 * {SSHA} htpasswd entry for the same token, the same files under the same paths.
 *
 * Rows: InRelease (7.5 KB), Packages.gz, a 10 KB package, 304 for If-None-Match, and
 * a 50 MB package (MB/s). wrk -t2 -c64 for every row but the 50 MB one (-t2 -c8).
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { Registry } from 'prom-client';
import { createHttpServer, createReadModelStore, inboxStream } from '@packyard/platform';
import { FsBlobStore } from '@packyard/platform/blobs/index';
import type { IndexFile } from '@packyard/proto/packyard/repository/v1/events';
import { TrafficAccounting } from '@packyard/delivery/accounting/traffic-accounting';
import { VerdictCache, INVALID } from '@packyard/delivery/auth/token-verdicts';
import { deliveryProjection } from '@packyard/delivery/catalog/delivery.projection';
import { PublishedCatalog } from '@packyard/delivery/catalog/published-catalog';
import { deliveryEdge } from '@packyard/delivery/edge/delivery-edge';
import { EdgeMetrics } from '@packyard/delivery/edge/edge-metrics';
import { PackageBodyCache } from '@packyard/delivery/edge/package-body-cache';
import { PublicKeys } from '@packyard/delivery/keys/public-keys';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TOKEN = `pyd_rt_${randomBytes(24).toString('base64url')}`;
const AUTHORIZATION = `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}`;
const REPOSITORY = '/deb/acme/tools/debian';

function text(bytes: number): Buffer {
  const line = 'Package: hello\nVersion: 1.0\nDescription: a line of an index file, repeated\n';
  return Buffer.from(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
}

function packagesIndex(count: number): Buffer {
  let index = '';
  for (let i = 0; i < count; i++) {
    index += `Package: package-${i}\nVersion: 1.${i}-1\nArchitecture: amd64\nFilename: pool/main/p/package-${i}/package-${i}_1.${i}-1_amd64.deb\n`;
    index += `Size: ${1000 + i * 37}\nSHA256: ${createHash('sha256').update(String(i)).digest('hex')}\nDescription: package number ${i}\n\n`;
  }
  return Buffer.from(index);
}

const FILES = {
  inRelease: { path: 'dists/bookworm/InRelease', bytes: text(7_500), isPackage: false },
  // stanzas that differ like real ones do, so the compressed index has a realistic size (~60 KB)
  packagesGz: { path: 'dists/bookworm/main/binary-amd64/Packages.gz', bytes: gzipSync(packagesIndex(1_000)), isPackage: false },
  small: { path: 'pool/main/h/hello/hello_1.0_all.deb', bytes: randomBytes(10 * 1024), isPackage: true },
  large: { path: 'pool/main/b/big/big_1.0_amd64.deb', bytes: randomBytes(50 * 1024 * 1024), isPackage: true },
};

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

async function startDelivery(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const blobs = new FsBlobStore(join(dir, 'blobs'));
  const readModels = await createReadModelStore({ kind: 'sqlite', dataDir: dir, module: 'delivery' });
  const catalog = new PublishedCatalog(readModels, blobs);
  const files: IndexFile[] = [];
  for (const file of Object.values(FILES)) {
    const info = await blobs.putContentAddressed('bench', Readable.from([file.bytes]));
    files.push({ path: file.path, blobKey: info.key, size: info.size, sha256: info.sha256, contentType: '', package: file.isPackage });
  }
  await deliveryProjection().handle(
    {
      id: 'bench',
      stream: inboxStream('repository', 'bench'),
      type: 'IndexPublished',
      version: 1,
      position: 1,
      recordedAt: new Date().toISOString(),
      data: {
        repositoryId: 'r1', distribution: 'debian/bookworm', generation: 1, publishedAt: new Date().toISOString(), kind: 'DEB',
        workspaceId: 'w1', workspaceSlug: 'acme', repositoryName: 'tools', distro: 'debian', version: 'bookworm', files, retainedGenerations: [], ownerId: 'u1',
      },
    },
    readModels,
  );
  await catalog.refresh('r1');
  const registry = new Registry();
  const logger = pino({ level: 'warn' });
  const http = createHttpServer({ logger, registry, bodyLimit: 1024 * 1024, isProcessReady: () => true });
  const accounting = new TrafficAccounting(() => 'p1');
  const timer = setInterval(() => accounting.drain(), 1000);
  http.addEdgeHandler(
    deliveryEdge({
      catalog,
      verdicts: new VerdictCache(
        async (token) => (token === TOKEN ? { valid: true, kind: 'repo_token', tokenId: 't1', ownerId: 'u1', scopes: [], repositoryId: 'r1' } : INVALID),
        { ttlMs: 4000, negativeTtlMs: 2000, maxEntries: 100_000 },
      ),
      accounting,
      blobs,
      publicKeys: new PublicKeys(async () => ({ armored: '', binary: new Uint8Array() })),
      metrics: new EdgeMetrics(registry),
      packageBodies: new PackageBodyCache((key) => blobs.get(key), 1024 * 1024, 64 * 1024 * 1024),
      logger,
    }),
  );
  await http.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${http.port()}${REPOSITORY}`,
    close: async () => {
      clearInterval(timer);
      await http.app.close();
      await readModels.close();
    },
  };
}

async function startNginx(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const root = join(dir, 'www');
  for (const file of Object.values(FILES)) {
    const target = join(root, REPOSITORY, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.bytes);
  }
  const salt = randomBytes(8);
  const ssha = Buffer.concat([createHash('sha1').update('').update(salt).digest(), salt]).toString('base64');
  await writeFile(join(dir, 'htpasswd'), `${TOKEN}:{SSHA}${ssha}\n`);
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
    const response = await fetch(`${url}/${FILES.inRelease.path}`, { headers: { authorization: AUTHORIZATION } }).catch(() => undefined);
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

const ROWS: Row[] = [
  { name: 'InRelease (7.5 KB)', path: FILES.inRelease.path, connections: 64 },
  { name: `Packages.gz (${Math.round(FILES.packagesGz.bytes.length / 1024)} KB)`, path: FILES.packagesGz.path, connections: 64 },
  { name: 'package 10 KB', path: FILES.small.path, connections: 64 },
  { name: '304 If-None-Match (InRelease)', path: FILES.inRelease.path, conditional: true, connections: 64 },
  { name: 'package 50 MB', path: FILES.large.path, connections: 8, throughput: true },
];

async function measure(server: { url: string }, row: Row): Promise<WrkResult> {
  const url = `${server.url}/${row.path}`;
  const headers: Record<string, string> = { Authorization: AUTHORIZATION };
  if (row.conditional) {
    const response = await fetch(url, { method: 'HEAD', headers: { authorization: AUTHORIZATION } });
    headers['If-None-Match'] = response.headers.get('etag')!;
    const check = await fetch(url, { headers: { authorization: AUTHORIZATION, 'if-none-match': headers['If-None-Match'] } });
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
  const delivery = await startDelivery(join(dir, 'delivery'));
  const nginx = await startNginx(join(dir, 'nginx')).catch(async (error) => {
    await delivery.close();
    throw error;
  });
  let failed = false;
  try {
    console.log(`wrk -t2, ${SECONDS}s per row and server; HTTP Basic with a repository token on both\n`);
    for (const row of ROWS) {
      const ours = await measure(delivery, row);
      const theirs = await measure(nginx, row);
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
