/**
 * Publish latency: the time from one more upload's request to the new signed index being
 * current (`POST …/upload?wait=published` answering), in repositories of 5,000 and 10,000
 * packages, next to Debian's tools doing the same job on the same corpus:
 *   reprepro includedeb (exports and signs InRelease/Release.gpg),
 *   aptly repo add + publish update -skip-contents -skip-bz2 (signs),
 *   createrepo_c --update + gpg --detach-sign --armor repomd.xml.
 * Run: npx tsx loadtests/publish.bench.ts   (BENCH_CACHE: cache folder, BENCH_RUNS: runs per case, default 5,
 * BENCH_SIZES: e.g. "5000,10000")
 *
 * The corpus and the seeded Packyard data folders are cached in BENCH_CACHE: the first run
 * seeds every repository through the HTTP API (several minutes), later runs reuse them.
 * Each timed upload adds one new package, so a cached repository grows by BENCH_RUNS per run.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';
import { buildCorpus } from '@packyard/testing/packages/corpus.builder';
import { buildRpm } from '@packyard/testing/packages/rpm.builder';
import { runChecked } from '@packyard/testing/clients/run-command';
import { seededRepository, uploadFile } from './lib/packyard-seed';

const cacheDir = process.env.BENCH_CACHE ?? join(tmpdir(), 'packyard-bench-corpus');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SIZES = (process.env.BENCH_SIZES ?? '5000,10000').split(',').map(Number);
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

async function packyardCase(kind: 'DEB' | 'RPM', count: number, files: string[], extras: { name: string; bytes: Buffer }[]) {
  const distribution = kind === 'DEB' ? 'ubuntu/noble' : 'el/9';
  const seeded = await seededRepository(join(cacheDir, `packyard-${kind.toLowerCase()}-${count}`), kind, files, distribution);
  try {
    // the first build after a start loads and caches every package: not what an upload costs
    const warm = extras.shift()!;
    await uploadFile(seeded.packyard, seeded.bearer, seeded.path, warm.name, warm.bytes, distribution, true);
    const samples: number[] = [];
    for (const extra of extras) {
      let status = 0;
      samples.push(await timed(async () => ({ status } = await uploadFile(seeded.packyard, seeded.bearer, seeded.path, extra.name, extra.bytes, distribution, true))));
      if (status !== 201) throw new Error(`upload answered ${status}`);
    }
    report(`${kind} ${count}`, 'packyard upload → signed index current', samples);
  } finally {
    await seeded.packyard.stop();
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
    await packyardCase('DEB', count, debs, await Promise.all(debExtras.slice(0, RUNS + 1).map(async (file) => ({ name: file.split('/').at(-1)!, bytes: await readFile(file) }))));
    await repreproCase(count, debs, debExtras.slice(RUNS + 1, 2 * RUNS + 1));
    await aptlyCase(count, debs, debExtras.slice(2 * RUNS + 1, 3 * RUNS + 1));

    const rpms = await buildCorpus('rpm', count, cacheDir);
    const rpmExtras: string[] = [];
    for (let i = 0; i < 2 * RUNS + 1; i++) rpmExtras.push(await buildRpm({ name: uniqueName('extra', i), version: '1.0', release: '1', arch: 'noarch' }, extrasDir));
    await packyardCase('RPM', count, rpms, await Promise.all(rpmExtras.slice(0, RUNS + 1).map(async (file) => ({ name: file.split('/').at(-1)!, bytes: await readFile(file) }))));
    await createrepoCase(count, rpms, rpmExtras.slice(RUNS + 1));
  }
  await rm(extrasDir, { recursive: true, force: true });
  console.log('\nmedians (s):');
  console.table(rows.map((row) => ({ case: row.case, tool: row.tool, median: +(row.median / 1000).toFixed(3), min: +(row.min / 1000).toFixed(3), max: +(row.max / 1000).toFixed(3) })));
}

await main();
