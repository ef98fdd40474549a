/**
 * Publish latency, next to Debian's and Fedora's tools doing the same job on the same corpus
 * in the same run, at 5,000 and 10,000 packages:
 *   edge: the whole program (startPackyard): the upload request → the package listed in the
 *     index the edge serves, found as apt and dnf find it (DEB: InRelease, then the Packages
 *     it names by hash; RPM: repomd.xml, then the primary.xml.gz it locates), polled every
 *     5 ms; the signature is checked with gpgv against the repository's keyring.gpg after the
 *     clock stops (a client's cost, not the server's). Also the upload call alone (→ 201),
 *     and the upload request → the poll that first read the new InRelease or repomd.xml (the
 *     rest is the client reading the index it names: at 100,000 packages a 17 MB Packages.gz
 *     fetched and decompressed).
 *   packyard: the repository module's publishing alone on the publishing rig (artifact's
 *     PackageUploaded recorded in its inbox → the new signed index current).
 *   reprepro includedeb (exports and signs InRelease/Release.gpg),
 *   aptly repo add + publish update -skip-contents -skip-bz2 (signs),
 *   createrepo_c --update + gpg --detach-sign --armor repomd.xml.
 * Run: npx tsx loadtests/publish.bench.ts   (BENCH_CACHE: cache folder, BENCH_RUNS: runs per case,
 * default 5 (edge: 4×, for a p99), BENCH_SIZES: default "5000,10000", BENCH_TOOLS: default
 * "edge,packyard,reprepro,aptly,createrepo", BENCH_KINDS: default "DEB,RPM", BENCH_PROFILE_DIR:
 * the program's processes write V8 CPU profiles there)
 *
 * Seeding is a bulk import: the corpus is parsed once and written straight into the
 * repository module's read model of publishable packages (seeding 10,000 packages through
 * HTTP takes tens of minutes on two cores, each upload paying a dozen synchronous SQLite
 * commits). For the edge case the program is stopped for it and started again on the same
 * data; its repository reads the seeded set on the next build, which the first upload
 * starts (that run is not counted: it also fills the index-text caches). The seeded
 * packages' files are not stored (their pool URLs would answer 404): only their index
 * entries are published, as they would be after real uploads. The timed parts are the
 * module's real code: on the rig the Publisher with its SQLite event store, the filesystem
 * blob store, and the signing module's handlers and key ring (RSA-4096) called in-process;
 * at the edge the whole single-node program.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { formatDistribution, parseDeb, parseRpm, type Distribution } from '@packyard/formats';
import { loadConfig, openModuleStores, recordInbox } from '@packyard/platform';
import { startPackyard, waitFor, type RunningPackyard } from '@packyard/testing';
import { registerUser } from '@packyard/testing/api-session';
import { PUBLISHABLE_PACKAGES } from '@packyard/repository/packages/publishable-packages.projection';
import type { PackageUploaded } from '@packyard/formats/recorded-distributions';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';
import { buildCorpus } from '@packyard/testing/packages/corpus.builder';
import { buildRpm } from '@packyard/testing/packages/rpm.builder';
import { runChecked, runCommand } from '@packyard/testing/clients/run-command';
import { debIdentity, rpmIdentity } from '@packyard/artifact/uploads/upload-rules';
import { toPublishablePackage, type PublishablePackage } from '@packyard/repository/packages/publishable-package';
import { seedRepository, startPublishingRig } from '@packyard/repository/publishing/testing/publishing-rig';

const cacheDir = process.env.BENCH_CACHE ?? join(tmpdir(), 'packyard-bench-corpus');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SIZES = (process.env.BENCH_SIZES ?? '5000,10000').split(',').map(Number);
/** uploads timed at the edge: more than the others' runs, for a p99 */
const EDGE_RUNS = 4 * RUNS;
/** which tools to run, e.g. BENCH_TOOLS=edge,reprepro (default: all five) */
const TOOLS = new Set((process.env.BENCH_TOOLS ?? 'edge,packyard,reprepro,aptly,createrepo').split(','));
/** which repository kinds, e.g. BENCH_KINDS=DEB (default: DEB,RPM) */
const KINDS = new Set((process.env.BENCH_KINDS ?? 'DEB,RPM').split(','));
const GNUPGHOME = join(cacheDir, 'reference-gnupg');
const KEY_UID = 'Packyard bench <bench@packyard.invalid>';

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  // nearest rank: with fewer than 100 samples the p99 is the slowest
  const p99 = sorted[Math.ceil(0.99 * sorted.length) - 1];
  return { median, p99, min: sorted[0], max: sorted.at(-1)! };
};
const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
const rows: { case: string; tool: string; median: number; p99: number; min: number; max: number }[] = [];
const report = (name: string, tool: string, samples: number[]) => {
  const s = stats(samples);
  rows.push({ case: name, tool, ...s });
  console.log(`${name.padEnd(12)} ${tool.padEnd(44)} median ${fmt(s.median)}  p99 ${fmt(s.p99)}  min ${fmt(s.min)}  max ${fmt(s.max)}  (${samples.length} runs)`);
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const run = (command: string, args: string[], cwd?: string) => runChecked(command, args, { cwd, env: { ...process.env, GNUPGHOME } });

/** one RSA-4096 signing key for the reference tools, like a Packyard repository key */
async function referenceKey(): Promise<void> {
  if (existsSync(join(GNUPGHOME, 'ready'))) return;
  await rm(GNUPGHOME, { recursive: true, force: true });
  await mkdir(GNUPGHOME, { recursive: true, mode: 0o700 });
  await run('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', '--quick-gen-key', KEY_UID, 'rsa4096', 'sign', 'never']);
  await writeFile(join(GNUPGHOME, 'ready'), '');
}

const uniqueName = (prefix: string, run: number) => `${prefix}-${Date.now().toString(36)}-${run}`;

/** what artifact would have emitted for this file */
async function uploadedEvent(file: string, kind: 'DEB' | 'RPM', repositoryId: string, uploadDistribution: Distribution): Promise<PackageUploaded> {
  const identity = kind === 'DEB' ? debIdentity(await parseDeb(createReadStream(file))) : rpmIdentity(await parseRpm(createReadStream(file)));
  const sha256 = JSON.parse(identity.indexEntryJson)[kind === 'DEB' ? 'file' : 'rpm'].file?.sha256 ?? randomBytes(32).toString('hex');
  return {
    packageId: randomUUID(), repositoryId, workspaceId: 'bench-workspace', ownerId: 'bench-owner', kind, uploadDistribution, ...identity,
    sizeBytes: 1, sha256, blobKey: `packages/${repositoryId}/sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`, uploadedAt: new Date().toISOString(), sourceFiles: [],
  };
}

async function packyardCase(kind: 'DEB' | 'RPM', count: number, files: string[], extras: string[]) {
  const dataDir = await mkdtemp(join(tmpdir(), 'packyard-publish-bench-'));
  const repositoryId = randomUUID();
  const distribution = kind === 'DEB' ? DEB_DIST.upload : RPM_DIST.upload;
  const { es, publisher, stop } = await startPublishingRig(dataDir);
  const seeded = [];
  for (const file of files) seeded.push(toPublishablePackage(await uploadedEvent(file, kind, repositoryId, distribution)));
  await seedRepository(es, { id: repositoryId, kind, name: `bench-${kind.toLowerCase()}` }, seeded);
  try {
    const started = performance.now();
    await publisher.start();
    if (!(await publisher.waitForPublication(repositoryId, seeded[0].id, 120_000))) throw new Error('first publication did not complete');
    console.log(`${kind} ${count}: first publication of every distribution (key generation included) ${fmt(performance.now() - started)}`);
    const samples: number[] = [];
    for (const [run, file] of extras.entries()) {
      const data = await uploadedEvent(file, kind, repositoryId, distribution);
      const t0 = performance.now();
      await recordInbox(es.events, 'artifact', { id: randomUUID(), type: 'PackageUploaded', key: `package-${data.packageId}`, data });
      if (!(await publisher.waitForPublication(repositoryId, data.packageId, 30_000))) throw new Error(`run ${run} did not publish`);
      // the first build after a start loads and caches every package's index text: not what an upload costs
      if (run > 0) samples.push(performance.now() - t0);
    }
    report(`${kind} ${count}`, 'packyard PackageUploaded → signed index current', samples);
  } finally {
    await stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** the edge path of a distribution's index, as apt and dnf fetch it */
const DEB_DIST = { upload: { distro: 'ubuntu', version: 'noble' }, root: 'ubuntu/dists/noble' };
const RPM_DIST = { upload: { distro: 'el', version: '9' }, root: 'el/9' };

/**
 * Whether the edge serves an index listing `name`, read as a client reads it: InRelease,
 * then the Packages it names by its SHA-256 (apt's by-hash); repomd.xml, then the
 * primary.xml.gz it locates. Answers the signed file and its signature when it does.
 * Like apt and dnf, a poll reads the index only once the signed file names another one
 * than the last poll found: polling every 5 ms, a 1.4 MB Packages read each time would
 * be the bench loading the server, not a client's cost.
 */
function edgePoller(base: () => string, auth: Record<string, string>, kind: 'DEB' | 'RPM') {
  const get = async (path: string) => {
    const response = await fetch(`${base()}/${path}`, { headers: auth });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${body.toString().slice(0, 200)}`);
    return body;
  };
  let lastSigned: Buffer | undefined;
  return async (name: string): Promise<{ signed: Buffer; signature?: Buffer; signedAt: number } | undefined> => {
    const signed = await get(kind === 'DEB' ? `${DEB_DIST.root}/InRelease` : `${RPM_DIST.root}/repodata/repomd.xml`);
    if (lastSigned?.equals(signed)) return undefined;
    lastSigned = signed;
    // the edge serves the new signed file: what follows is the client reading the index it names
    const signedAt = performance.now();
    if (kind === 'DEB') {
      // Packages.gz, as apt fetches it: above 4 MiB the plain Packages is listed but not stored
      const digest = new RegExp(`^ ([0-9a-f]{64}) +\\d+ main/binary-amd64/Packages.gz$`, 'm').exec(signed.toString().split('\nSHA256:\n')[1] ?? '')?.[1];
      if (!digest) throw new Error('InRelease lists no main/binary-amd64/Packages.gz');
      const packages = gunzipSync(await get(`${DEB_DIST.root}/main/binary-amd64/by-hash/SHA256/${digest}`));
      return packages.includes(`Package: ${name}\n`) ? { signed, signedAt } : undefined;
    }
    const primary = /<data type="primary">[\s\S]*?<location href="([^"]+)"/.exec(signed.toString())?.[1];
    if (!primary) throw new Error('repomd.xml locates no primary');
    const listed = gunzipSync(await get(`${RPM_DIST.root}/${primary}`)).includes(`<name>${name}</name>`);
    return listed ? { signed, signature: await get(`${RPM_DIST.root}/repodata/repomd.xml.asc`), signedAt } : undefined;
  };
}

/** gpgv with the repository's keyring.gpg as its only trusted keys: the check apt and dnf make */
async function verifiedWithGpgv(directory: string, keyring: Buffer, served: { signed: Buffer; signature?: Buffer }): Promise<void> {
  await writeFile(join(directory, 'keyring.gpg'), keyring);
  await writeFile(join(directory, 'signed'), served.signed);
  if (served.signature) await writeFile(join(directory, 'signed.asc'), served.signature);
  const files = served.signature ? [join(directory, 'signed.asc'), join(directory, 'signed')] : [join(directory, 'signed')];
  await runChecked('gpgv', ['--keyring', join(directory, 'keyring.gpg'), ...files]);
}

/**
 * The whole program: the upload request → the package in a gpgv-verified index at the
 * edge. The repository's packages are seeded while the program is stopped (see the top).
 */
async function edgeCase(kind: 'DEB' | 'RPM', count: number, files: string[], extras: string[]) {
  const dataDir = await mkdtemp(join(tmpdir(), 'packyard-edge-bench-'));
  const verifyDir = await mkdtemp(join(tmpdir(), 'packyard-edge-verify-'));
  // as `npm start` runs it: the edge in a worker per core
  const start = () => startPackyard({ dataDir, timeoutMs: 180_000, edgeWorkers: 'program default', cpuProfileDir: process.env.BENCH_PROFILE_DIR });
  let packyard: RunningPackyard | undefined;
  try {
    packyard = await start();
    const session = await registerUser(packyard);
    const slug = `bench-${Date.now().toString(36)}`;
    const workspace = (await session.call<{ id: string }>('POST', '/workspaces', { name: slug, slug, description: '' })).body;
    const name = `edge-${kind.toLowerCase()}`;
    const repository = (await session.call<{ id: string }>('POST', `/workspaces/${workspace.id}/repos`, { name, kind, codename: 'noble', component: 'main' })).body;
    const token = (await session.call<{ token: string }>('POST', `/repos/${repository.id}/tokens`, { name: 'bench' })).body.token;
    const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const base = () => `${packyard!.url}/${kind === 'DEB' ? 'deb' : 'rpm'}/${slug}/${name}`;
    // an .rpm upload is signed with the repository's first key (RSA-4096): made after its creation
    await waitFor('the repository key', async () => ((await fetch(`${base()}/keyring.gpg`)).status === 200 ? true : undefined), { timeoutMs: 120_000 });

    await packyard.stop();
    const stores = await openModuleStores(loadConfig({ DATA_DIR: dataDir }), 'repository');
    const collection = stores.readModels.collection<PublishablePackage>(PUBLISHABLE_PACKAGES);
    const distribution = kind === 'DEB' ? DEB_DIST.upload : RPM_DIST.upload;
    for (const file of files) await collection.upsert(toPublishablePackage(await uploadedEvent(file, kind, repository.id, distribution)));
    await stores.events.close();
    await stores.readModels.close();
    packyard = await start();

    const upload = async (file: string) => {
      const form = new FormData();
      form.set('distribution', formatDistribution(distribution));
      form.set('file', new Blob([await readFile(file)]), basename(file));
      const response = await fetch(`${packyard!.url}/api/v1/workspaces/${workspace.id}/repos/${repository.id}/upload`, { method: 'POST', headers: { authorization: `Bearer ${session.bearer}` }, body: form });
      const body = (await response.json()) as { name: string };
      if (response.status !== 201) throw new Error(`upload of ${basename(file)} answered ${response.status}: ${JSON.stringify(body)}`);
      return body.name;
    };
    const servedAtEdge = edgePoller(base, auth, kind);
    const visible: number[] = [];
    const signedServed: number[] = [];
    const calls: number[] = [];
    for (const [run, file] of extras.entries()) {
      const started = performance.now();
      const packageName = await upload(file);
      const answered = performance.now() - started;
      let served;
      while (!(served = await servedAtEdge(packageName))) {
        if (performance.now() - started > 120_000) throw new Error(`run ${run}: ${packageName} not served after 120 s`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const elapsed = performance.now() - started;
      await verifiedWithGpgv(verifyDir, Buffer.from(await (await fetch(`${base()}/keyring.gpg`)).arrayBuffer()), served);
      if (run === 0) {
        // the first build after the start reads the seeded set and fills the caches: not what an upload costs
        console.log(`${kind} ${count}: first upload after the start → at the edge ${fmt(elapsed)} (not counted)`);
        continue;
      }
      visible.push(elapsed);
      signedServed.push(served.signedAt - started);
      calls.push(answered);
    }
    report(`${kind} ${count}`, 'packyard upload request → gpgv-verified index at the edge', visible);
    report(`${kind} ${count}`, `packyard upload request → its ${kind === 'DEB' ? 'InRelease' : 'repomd.xml'} served (the server's part of the above)`, signedServed);
    report(`${kind} ${count}`, 'packyard upload request → 201 (the call alone)', calls);
  } finally {
    await packyard?.dispose();
    await rm(dataDir, { recursive: true, force: true });
    await rm(verifyDir, { recursive: true, force: true });
  }
}

async function repreproCase(count: number, files: string[], extras: string[]) {
  const base = join(cacheDir, `reprepro-${count}`);
  if (!existsSync(join(base, 'ready'))) {
    await rm(base, { recursive: true, force: true });
    await mkdir(join(base, 'conf'), { recursive: true });
    await writeFile(join(base, 'conf', 'distributions'), `Codename: noble\nComponents: main\nArchitectures: amd64 arm64\nSignWith: default\n`);
    for (let i = 0; i < files.length; i += 500) await run('reprepro', ['-b', base, 'includedeb', 'noble', ...files.slice(i, i + 500)]);
    await writeFile(join(base, 'ready'), '');
  }
  const samples = [];
  for (const extra of extras) samples.push(await timed(() => run('reprepro', ['-b', base, 'includedeb', 'noble', extra])));
  report(`DEB ${count}`, 'reprepro includedeb (export + sign)', samples);
}

async function aptlyCase(count: number, files: string[], extras: string[]) {
  const base = join(cacheDir, `aptly-${count}`);
  const config = join(base, 'aptly.conf');
  const aptly = (...args: string[]) => run('aptly', [`-config=${config}`, ...args]);
  if (!existsSync(join(base, 'ready'))) {
    await rm(base, { recursive: true, force: true });
    await mkdir(base, { recursive: true });
    await writeFile(config, JSON.stringify({ rootDir: base, gpgProvider: 'gpg' }));
    await aptly('repo', 'create', '-distribution=noble', '-component=main', 'bench');
    await aptly('repo', 'add', 'bench', join(cacheDir, `deb-${count}`));
    await aptly('publish', 'repo', '-skip-contents', '-skip-bz2', '-architectures=amd64,arm64', 'bench');
    await writeFile(join(base, 'ready'), '');
  }
  const samples = [];
  for (const extra of extras) samples.push(await timed(async () => {
    await aptly('repo', 'add', 'bench', extra);
    await aptly('publish', 'update', '-skip-contents', '-skip-bz2', 'noble');
  }));
  report(`DEB ${count}`, 'aptly repo add + publish update', samples);
}

async function createrepoCase(count: number, files: string[], extras: string[]) {
  const base = join(cacheDir, `createrepo-${count}`);
  if (!existsSync(join(base, 'ready'))) {
    await rm(base, { recursive: true, force: true });
    await mkdir(join(base, 'Packages'), { recursive: true });
    for (const file of files) await copyFile(file, join(base, 'Packages', file.split('/').at(-1)!));
    await run('createrepo_c', ['--workers', '2', base]);
    await writeFile(join(base, 'ready'), '');
  }
  const samples = [];
  for (const extra of extras) {
    await copyFile(extra, join(base, 'Packages', extra.split('/').at(-1)!));
    samples.push(await timed(async () => {
      await run('createrepo_c', ['--update', '--workers', '2', base]);
      await rm(join(base, 'repodata', 'repomd.xml.asc'), { force: true });
      await run('gpg', ['--batch', '--yes', '--detach-sign', '--armor', join(base, 'repodata', 'repomd.xml')]);
    }));
  }
  report(`RPM ${count}`, 'createrepo_c --update + gpg --detach-sign', samples);
}

async function main() {
  await mkdir(cacheDir, { recursive: true });
  await referenceKey();
  try {
    await compareAtEachSize();
  } finally {
    // the reference tools' gpg calls start an agent for the cached key's home: not left running after the bench
    await runCommand('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME } });
  }
}

async function compareAtEachSize() {
  const extrasDir = join(cacheDir, `extras-${Date.now()}`);
  await mkdir(extrasDir, { recursive: true });
  for (const count of SIZES) {
    const debs = await buildCorpus('deb', count, cacheDir);
    const debExtras = await Promise.all(
      Array.from({ length: RUNS * 3 + 1 + EDGE_RUNS + 1 }, async (_, i) => {
        const name = uniqueName('extra', i);
        const file = join(extrasDir, `${name}_1.0-1_amd64.deb`);
        await writeFile(file, await craftDeb({ control: `${validControlText(name, '1.0-1', 'amd64')}Section: misc\nPriority: optional\n` }));
        return file;
      }),
    );
    if (TOOLS.has('packyard')) await packyardCase('DEB', count, debs, debExtras.slice(0, RUNS + 1));
    if (TOOLS.has('reprepro')) await repreproCase(count, debs, debExtras.slice(RUNS + 1, 2 * RUNS + 1));
    if (TOOLS.has('aptly')) await aptlyCase(count, debs, debExtras.slice(2 * RUNS + 1, 3 * RUNS + 1));
    if (TOOLS.has('edge') && KINDS.has('DEB')) await edgeCase('DEB', count, debs, debExtras.slice(3 * RUNS + 1));
    if (!KINDS.has('RPM') || !['edge', 'packyard', 'createrepo'].some((tool) => TOOLS.has(tool))) continue;

    const rpms = await buildCorpus('rpm', count, cacheDir);
    const rpmExtras: string[] = [];
    for (let i = 0; i < 2 * RUNS + 1 + EDGE_RUNS + 1; i++) rpmExtras.push(await buildRpm({ name: uniqueName('extra', i), version: '1.0', release: '1', arch: 'noarch' }, extrasDir));
    if (TOOLS.has('packyard')) await packyardCase('RPM', count, rpms, rpmExtras.slice(0, RUNS + 1));
    if (TOOLS.has('createrepo')) await createrepoCase(count, rpms, rpmExtras.slice(RUNS + 1, 2 * RUNS + 1));
    if (TOOLS.has('edge')) await edgeCase('RPM', count, rpms, rpmExtras.slice(2 * RUNS + 1));
  }
  await rm(extrasDir, { recursive: true, force: true });
  console.log('\nmedians (s):');
  console.table(rows.map((row) => ({ case: row.case, tool: row.tool, median: +(row.median / 1000).toFixed(3), p99: +(row.p99 / 1000).toFixed(3), min: +(row.min / 1000).toFixed(3), max: +(row.max / 1000).toFixed(3) })));
}

await main();
