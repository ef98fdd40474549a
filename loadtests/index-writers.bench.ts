/**
 * Index writer benchmark: times the APT and YUM writers for 1k, 5k and 10k packages.
 * Run: npx tsx loadtests/index-writers.bench.ts   (BENCH_CACHE overrides the corpus cache)
 *
 * The corpus (10,000 .debs and 10,000 .rpms) is built once and cached; the first run
 * spends a few minutes in rpmbuild. The repository service caches each package's stanza
 * and XML fragments, so "index" times are what a rebuild costs; "fragments" times are
 * what a cold cache adds.
 */
import { createReadStream } from 'node:fs';
import { basename, join } from 'node:path';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import {
  type AptIndexEntry, buildPackagesIndex, buildRelease, buildRepodata, packagesForArchitecture, packagesStanza,
  parseDeb, parseRpm, type YumIndexEntry, yumPackageFragments,
} from '@packyard/formats';
import { buildCorpus } from '@packyard/testing/packages/corpus.builder';

const SIZES = [1_000, 5_000, 10_000];
const cacheDir = process.env.BENCH_CACHE ?? join(tmpdir(), 'packyard-bench-corpus');
const DATE = new Date(Date.UTC(2024, 0, 1));

interface Timing {
  readonly wall: number;
  /** Process CPU time (all threads): what the work costs when other work shares the cores. */
  readonly cpu: number;
}

async function timed<T>(work: () => Promise<T> | T): Promise<[T, Timing]> {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const result = await work();
  const cpu = process.cpuUsage(cpuStart);
  return [result, { wall: performance.now() - start, cpu: (cpu.user + cpu.system) / 1000 }];
}

/** Maps with at most `limit` calls in flight (10,000 files opened at once would exhaust descriptors). */
async function mapLimited<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index]);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** Best of three runs: the cores are shared, so the minimum is the closest to the real cost. */
async function best<T>(work: () => Promise<T> | T): Promise<[T, Timing]> {
  let result!: T;
  let wall = Number.POSITIVE_INFINITY;
  let cpu = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3; run++) {
    const [value, timing] = await timed(work);
    result = value;
    wall = Math.min(wall, timing.wall);
    cpu = Math.min(cpu, timing.cpu);
  }
  return [result, { wall, cpu }];
}

const ms = ({ wall, cpu }: Timing) => `${wall.toFixed(0)}/${cpu.toFixed(0)} ms`;

async function main(): Promise<void> {
  const largest = Math.max(...SIZES);
  console.log(`corpus: ${cacheDir}`);
  const [debFiles, debBuild] = await timed(() => buildCorpus('deb', largest, cacheDir));
  const [rpmFiles, rpmBuild] = await timed(() => buildCorpus('rpm', largest, cacheDir));
  console.log(`corpus ready: ${debFiles.length} debs (${ms(debBuild)}), ${rpmFiles.length} rpms (${ms(rpmBuild)})`);

  const [debs, debParse] = await timed(() =>
    mapLimited(debFiles, 8, async (file): Promise<AptIndexEntry> => {
      const deb = await parseDeb(createReadStream(file));
      return { control: deb.control, filename: `pool/main/${deb.name[0]}/${deb.name}/${basename(file)}`, file: deb.file };
    }),
  );
  const [rpms, rpmParse] = await timed(() =>
    mapLimited(rpmFiles, 8, async (file): Promise<YumIndexEntry> => ({ rpm: await parseRpm(createReadStream(file)), location: `Packages/${basename(file)}`, fileTime: 1_700_000_000 })),
  );
  console.log(`parse: ${largest} debs ${ms(debParse)}, ${largest} rpms ${ms(rpmParse)}\n`);

  console.log(`times are wall/CPU, best of 3; load average now ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`);
  console.log('packages | APT stanzas | APT index amd64 (+Release) | same, xz forced | YUM fragments | YUM repodata');
  for (const size of SIZES) {
    const aptEntries = packagesForArchitecture(debs.slice(0, size), 'amd64');
    const [stanzas, stanzaTime] = await best(() => aptEntries.map((entry) => ({ key: entry.filename, text: packagesStanza(entry) })));
    const [, aptTime] = await best(async () => {
      const { listed } = await buildPackagesIndex(stanzas, { component: 'main', architecture: 'amd64' });
      return buildRelease(listed, { origin: 'Packyard', label: 'bench', suite: 'noble', codename: 'noble', date: DATE, architectures: ['amd64'], components: ['main'], description: 'bench' });
    });
    const [, aptXzTime] = await best(() => buildPackagesIndex(stanzas, { component: 'main', architecture: 'amd64', xzMaxPlainBytes: Number.POSITIVE_INFINITY }));
    const [fragments, fragmentTime] = await best(() => rpms.slice(0, size).map((entry) => ({ key: entry.location, fragments: yumPackageFragments(entry) })));
    const [, yumTime] = await best(() => buildRepodata(fragments, { revision: '1', timestamp: 1_700_000_000 }));
    console.log(
      `${String(size).padStart(8)} | ${ms(stanzaTime).padStart(11)} | ${ms(aptTime).padStart(26)} | ${ms(aptXzTime).padStart(14)} | ${ms(fragmentTime).padStart(13)} | ${ms(yumTime).padStart(12)}`,
    );
  }
}

await main();
