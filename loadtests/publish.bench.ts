/**
 * Publish latency: the time from the repository module learning of one more package
 * (artifact's PackageUploaded recorded in its inbox, as the bus reaction does) to the new
 * signed index being current (the publisher's IndexPublished for it), in repositories of
 * 5,000 and 10,000 packages, next to Debian's tools doing the same job on the same corpus:
 *   reprepro includedeb (exports and signs InRelease/Release.gpg),
 *   aptly repo add + publish update -skip-contents -skip-bz2 (signs),
 *   createrepo_c --update + gpg --detach-sign --armor repomd.xml.
 * Run: npx tsx loadtests/publish.bench.ts   (BENCH_CACHE: cache folder, BENCH_RUNS: runs per case,
 * default 5, BENCH_SIZES: default "5000,10000")
 *
 * Seeding is a bulk import: the corpus is parsed once and written straight into the
 * repository module's read models (the publisher loads them at start); seeding 10,000
 * packages through HTTP takes tens of minutes on two cores, each upload paying a dozen
 * synchronous SQLite commits. The timed part is the module's real code: the Publisher
 * with its SQLite event store, the filesystem blob store, and the signing module's
 * handlers and key ring (RSA-4096) called in-process instead of over loopback gRPC. The
 * upload request itself (HTTP, staging, parse, PackageUploaded, outbox, bus, inbox) adds a
 * constant ~0.1–0.3 s here, measured by the e2e suite, independent of repository size.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseDeb, parseRpm } from '@packyard/formats';
import { recordInbox } from '@packyard/platform';
import type { PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';
import { buildCorpus } from '@packyard/testing/packages/corpus.builder';
import { buildRpm } from '@packyard/testing/packages/rpm.builder';
import { runChecked } from '@packyard/testing/clients/run-command';
import { debIdentity, rpmIdentity } from '@packyard/artifact/uploads/upload-rules';
import { toPublishablePackage } from '@packyard/repository/packages/publishable-package';
import { seedRepository, startPublishingRig } from '@packyard/repository/publishing/testing/publishing-rig';

const cacheDir = process.env.BENCH_CACHE ?? join(tmpdir(), 'packyard-bench-corpus');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SIZES = (process.env.BENCH_SIZES ?? '5000,10000').split(',').map(Number);
/** which tools to run, e.g. BENCH_TOOLS=packyard (default: all four) */
const TOOLS = new Set((process.env.BENCH_TOOLS ?? 'packyard,reprepro,aptly,createrepo').split(','));
/** which repository kinds, e.g. BENCH_KINDS=DEB (default: DEB,RPM) */
const KINDS = new Set((process.env.BENCH_KINDS ?? 'DEB,RPM').split(','));
const GNUPGHOME = join(cacheDir, 'reference-gnupg');
const KEY_UID = 'Packyard bench <bench@packyard.invalid>';

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1)! };
};
const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
const rows: { case: string; tool: string; median: number; min: number; max: number }[] = [];
const report = (name: string, tool: string, samples: number[]) => {
  const s = stats(samples);
  rows.push({ case: name, tool, ...s });
  console.log(`${name.padEnd(12)} ${tool.padEnd(44)} median ${fmt(s.median)}  min ${fmt(s.min)}  max ${fmt(s.max)}  (${samples.length} runs)`);
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
async function uploadedEvent(file: string, kind: 'DEB' | 'RPM', repositoryId: string, distribution: string): Promise<PackageUploaded> {
  const identity = kind === 'DEB' ? debIdentity(await parseDeb(createReadStream(file))) : rpmIdentity(await parseRpm(createReadStream(file)));
  const sha256 = JSON.parse(identity.indexEntryJson)[kind === 'DEB' ? 'file' : 'rpm'].file?.sha256 ?? randomBytes(32).toString('hex');
  return {
    packageId: randomUUID(), repositoryId, workspaceId: 'bench-workspace', ownerId: 'bench-owner', kind, distribution, ...identity,
    sizeBytes: 1, sha256, blobKey: `packages/${repositoryId}/sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`, uploadedAt: new Date().toISOString(), sourceFiles: [],
  };
}

async function packyardCase(kind: 'DEB' | 'RPM', count: number, files: string[], extras: string[]) {
  const dataDir = await mkdtemp(join(tmpdir(), 'packyard-publish-bench-'));
  const repositoryId = randomUUID();
  const distribution = kind === 'DEB' ? 'ubuntu/noble' : 'el/9';
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
  const extrasDir = join(cacheDir, `extras-${Date.now()}`);
  await mkdir(extrasDir, { recursive: true });
  for (const count of SIZES) {
    const debs = await buildCorpus('deb', count, cacheDir);
    const debExtras = await Promise.all(
      Array.from({ length: RUNS * 3 + 1 }, async (_, i) => {
        const name = uniqueName('extra', i);
        const file = join(extrasDir, `${name}_1.0-1_amd64.deb`);
        await writeFile(file, await craftDeb({ control: `${validControlText(name, '1.0-1', 'amd64')}Section: misc\nPriority: optional\n` }));
        return file;
      }),
    );
    if (TOOLS.has('packyard')) await packyardCase('DEB', count, debs, debExtras.slice(0, RUNS + 1));
    if (TOOLS.has('reprepro')) await repreproCase(count, debs, debExtras.slice(RUNS + 1, 2 * RUNS + 1));
    if (TOOLS.has('aptly')) await aptlyCase(count, debs, debExtras.slice(2 * RUNS + 1, 3 * RUNS + 1));
    if (!KINDS.has('RPM') || (!TOOLS.has('packyard') && !TOOLS.has('createrepo'))) continue;

    const rpms = await buildCorpus('rpm', count, cacheDir);
    const rpmExtras: string[] = [];
    for (let i = 0; i < 2 * RUNS + 1; i++) rpmExtras.push(await buildRpm({ name: uniqueName('extra', i), version: '1.0', release: '1', arch: 'noarch' }, extrasDir));
    if (TOOLS.has('packyard')) await packyardCase('RPM', count, rpms, rpmExtras.slice(0, RUNS + 1));
    if (TOOLS.has('createrepo')) await createrepoCase(count, rpms, rpmExtras.slice(RUNS + 1));
  }
  await rm(extrasDir, { recursive: true, force: true });
  console.log('\nmedians (s):');
  console.table(rows.map((row) => ({ case: row.case, tool: row.tool, median: +(row.median / 1000).toFixed(3), min: +(row.min / 1000).toFixed(3), max: +(row.max / 1000).toFixed(3) })));
}

await main();
