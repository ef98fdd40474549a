/**
 * Soak: the single-node program under a steady mix of what users and machines do, for a
 * long time, watching for leaks.
 * Run: npx tsx loadtests/soak.ts [--minutes 30] [--concurrency 4]
 *
 * Mix per worker, in a loop: upload a .deb, list and search packages, fetch InRelease and
 * Packages.gz through the apt edge with a repository token, delete an older package, abort
 * an upload half-way, sign in with a wrong password. RSS and open descriptors of the server
 * process are sampled every 5 s, with what its V8 heap holds after full collections (the
 * server runs with --trace-gc). Prints the growth from the second fifth of the run (warm
 * caches) to the last fifth, each a window of samples (services/lib/testing/src/soak/
 * memory-growth.ts says why not two single samples): RSS, descriptors and the live heap
 * (target: flat within 10%), and the requests that
 * did not answer as expected (target: 0). Exits 1 when a target is missed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { startPackyard } from '@packyard/testing';
import { registerUser } from '@packyard/testing/api-session';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';
import { liveAfterFullCollections, memoryGrowth } from '@packyard/testing/soak/memory-growth';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '30' }, concurrency: { type: 'string', default: '4' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log('npx tsx loadtests/soak.ts [--minutes 30] [--concurrency 4]');
  process.exit(0);
}
const MINUTES = Number(values.minutes);
const CONCURRENCY = Number(values.concurrency);
const SAMPLE_MS = 5000;

// --trace-gc: what is live after each full collection, the measure a leak moves (memory-growth.ts)
const packyard = await startPackyard({ nodeArgs: ['--trace-gc'] });
const pid = packyard.child.pid!;
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const descriptors = () => readdirSync(`/proc/${pid}/fd`).length;

const alice = await registerUser(packyard);
const workspace = (await alice.call('POST', '/workspaces', { name: 'Soak', slug: `soak-${Date.now()}` })).body;
const repo = (await alice.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt', kind: 'DEB' })).body;
const repoPath = `/workspaces/${workspace.id}/repos/${repo.id}`;
const token = (await alice.call('POST', `/repos/${repo.id}/tokens`, { name: 'soak' })).body.token as string;
// the API calls go as a CI job's would, with an account token: the session's ID token lasts
// 15 minutes (the console refreshes it), less than a soak
const api = alice.as((await alice.call('POST', '/tokens', { name: 'soak', scopes: ['read', 'publish'] })).body.token as string);
const repositoryUrl = ((await alice.call('GET', `/repos/${repo.id}/snippets`)).body.repositoryUrl as string).replace(/^https?:\/\/[^/]+/, packyard.url);
const basic = `Basic ${Buffer.from(`${token}:`).toString('base64')}`;
// a new repository's empty index is published a moment after its creation
for (const until = Date.now() + 30_000; (await fetch(`${repositoryUrl}/ubuntu/dists/noble/InRelease`, { headers: { authorization: basic } })).status !== 200; ) {
  if (Date.now() > until) throw new Error('the repository was not published in time');
  await new Promise((resolve) => setTimeout(resolve, 200));
}

const counts = new Map<string, number>();
const errors: string[] = [];
const expectStatus = (what: string, status: number, expected: number[]) => {
  counts.set(what, (counts.get(what) ?? 0) + 1);
  if (!expected.includes(status) && errors.length < 1000) errors.push(`${what}: ${status}`);
};

async function upload(name: string) {
  const form = new FormData();
  form.append('distribution', 'ubuntu/noble');
  form.append('file', new Blob([new Uint8Array(await craftDeb({ control: validControlText(name) }))]), `${name}.deb`);
  const response = await fetch(`${packyard.url}/api/v1${repoPath}/upload`, { method: 'POST', headers: { authorization: `Bearer ${api.bearer}` }, body: form });
  const body = (await response.json()) as { id: string };
  expectStatus('upload', response.status, [201]);
  return body.id;
}

function abortedUpload(): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(packyard.port, '127.0.0.1', () => {
      socket.write(`POST /api/v1${repoPath}/upload HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${api.bearer}\r\ncontent-type: multipart/form-data; boundary=b\r\ncontent-length: 1000000\r\n\r\n--b\r\ncontent-disposition: form-data; name="file"; filename="cut.deb"\r\n\r\n`);
      socket.write(Buffer.alloc(64 * 1024));
      setTimeout(() => {
        socket.destroy();
        counts.set('aborted upload', (counts.get('aborted upload') ?? 0) + 1);
        resolve();
      }, 50);
    });
    socket.on('error', () => resolve());
  });
}

async function edge(path: string) {
  const response = await fetch(`${repositoryUrl}/ubuntu/${path}`, { headers: { authorization: basic } });
  await response.arrayBuffer();
  expectStatus(`apt ${path.split('/').pop()}`, response.status, [200]);
}

const deadline = Date.now() + MINUTES * 60_000;
async function worker(id: number) {
  const mine: string[] = [];
  for (let round = 0; Date.now() < deadline; round++) {
    mine.push(await upload(`soak-${id}-${round}`));
    expectStatus('list', (await api.call('GET', `${repoPath}/packages?page=0&size=20`)).status, [200]);
    expectStatus('search', (await api.call('GET', `${repoPath}/packages?q=soak-${id}&page=0&size=20`)).status, [200]);
    await edge('dists/noble/InRelease');
    await edge('dists/noble/main/binary-amd64/Packages.gz');
    // the repository stays small: older uploads go again
    if (mine.length > 5) expectStatus('delete', (await api.call('DELETE', `${repoPath}/packages/${mine.shift()}`)).status, [204]);
    await abortedUpload();
    const login = await fetch(`${packyard.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: alice.email, password: 'wrong' }) });
    expectStatus('wrong password', login.status, [401, 429]);
  }
}

/** the server's V8 heap in use and its memory outside the heap (Buffers), in MB, from its own /metrics */
async function heapMb(): Promise<{ heap: number; external: number }> {
  const text = await (await fetch(packyard.metricsUrl)).text();
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  return { heap: gauge('nodejs_heap_size_used_bytes'), external: gauge('nodejs_external_memory_bytes') };
}

/** the live heap after the newest full collection the server's --trace-gc lines report */
const latestHeapLive = () => liveAfterFullCollections(packyard.output()).at(-1) ?? NaN;

const samples: { at: number; rss: number; fds: number; heapLive: number; heap: number; external: number }[] = [];
const sample = async () => void samples.push({ at: Date.now(), rss: rssMb(), fds: descriptors(), heapLive: latestHeapLive(), ...(await heapMb()) });
let sampling = sample();
const sampler = setInterval(() => (sampling = sampling.then(sample)), SAMPLE_MS);
const started = Date.now();
await Promise.all(Array.from({ length: CONCURRENCY }, (_, id) => worker(id)));
clearInterval(sampler);
await sampling;
await packyard.dispose();

const { warm, end, rssGrowth, fdGrowth, heapLiveGrowth } = memoryGrowth(samples);
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)}%`;
const requests = [...counts.values()].reduce((sum, n) => sum + n, 0);
const minutes = (Date.now() - started) / 60_000;
const load = loadavg().map((value) => value.toFixed(1)).join(' ');
console.log(`soak: ${minutes.toFixed(1)} min, ${CONCURRENCY} workers, ${requests} operations (${(requests / minutes / 60).toFixed(1)}/s); load average at the end ${load}`);
console.log(`  ${[...counts].map(([what, n]) => `${what} ${n}`).join(', ')}`);
console.log('  warm = the second fifth of the samples, end = the last fifth (see memory-growth.ts)');
console.log(`  RSS ${samples[0].rss.toFixed(0)} MB at start; mean ${warm.rss.mean.toFixed(0)} MB warm (${warm.rss.min.toFixed(0)}–${warm.rss.max.toFixed(0)}), ${end.rss.mean.toFixed(0)} MB at the end (${end.rss.min.toFixed(0)}–${end.rss.max.toFixed(0)}): ${signed(rssGrowth)} (target within 10%); peak ${Math.max(...samples.map((s) => s.rss)).toFixed(0)} MB`);
console.log(`  V8 heap live after full collections (median) ${warm.heapLive.toFixed(0)} MB warm, ${end.heapLive.toFixed(0)} MB at the end: ${signed(heapLiveGrowth)} (target within 10%); peak in use ${Math.max(...samples.map((s) => s.heap)).toFixed(0)} MB; outside the heap (Buffers) at most ${Math.max(...samples.map((s) => s.external)).toFixed(0)} MB`);
console.log(`  descriptors ${samples[0].fds} at start, median ${warm.fds} warm, ${end.fds} at the end: ${signed(fdGrowth)} (target within 10%)`);
console.log(`  errors: ${errors.length} (target 0)${errors.length ? `: ${errors.slice(0, 10).join('; ')}` : ''}`);
if (Math.abs(rssGrowth) > 10 || Math.abs(fdGrowth) > 10 || heapLiveGrowth > 10 || errors.length > 0) process.exitCode = 1;
