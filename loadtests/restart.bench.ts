/**
 * A restart of the whole program (issue 17's third target) as users run it: the bundle
 * `npm start` runs (build it first), edge workers at the program's default, BENCH_REPOSITORIES
 * repositories (default 1,000, one in four RPM) of BENCH_REPOSITORY_PACKAGES packages each
 * (default 200), all made through the API (each repository generates its RSA-4096 key: 3-7 s
 * of CPU here, so 1,000 take the better part of an hour to seed, and 200,000 uploads more).
 * A loop of apt- and dnf-style fetches (InRelease, Packages, a package, repomd.xml, its
 * signature, an .rpm and both key files of every repository, BENCH_FETCHERS at a time) runs
 * through a SIGTERM and a kill -9 restart. Printed per restart: start → health, start → every
 * fetch of the loop answered 200 once more, the failed fetches (any answer but 200 with the
 * right body; a refused connection while the port is closed is counted apart), and the RSS of
 * the program's processes once served. Target: every repository served within 5 s of the
 * start, no failed fetch.
 * Run: npm run build && npx tsx loadtests/restart.bench.ts   (smaller: BENCH_REPOSITORIES=100
 * BENCH_REPOSITORY_PACKAGES=20). With BENCH_DATA_DIR the data directory is kept, and a later
 * run on the same directory skips the seeding (the loop's fetches and who seeded it are kept
 * beside the data); one with a larger BENCH_REPOSITORY_PACKAGES uploads the packages missing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser, signIn, type ApiSession } from '@packyard/testing/api-session';
import { startFetchLoop, type FetchProbe } from '@packyard/testing/clients/fetch-loop';
import { makeServedRepository, uploadPackages } from '@packyard/testing/clients/served-repository';
import { buildCorpus } from '@packyard/testing/packages/corpus.builder';

const REPOSITORIES = Number(process.env.BENCH_REPOSITORIES ?? 1_000);
const PACKAGES = Number(process.env.BENCH_REPOSITORY_PACKAGES ?? 200);
const FETCHERS = Number(process.env.BENCH_FETCHERS ?? 8);
// repositories seeded at once: their key generations run side by side (the signing module bounds them)
const SEED_CONCURRENCY = 4;
const UPLOADS_PER_REPOSITORY = 4;
const BUNDLE = resolve(import.meta.dirname, '../services/server/dist/main.mjs');
const cacheDir = process.env.BENCH_CACHE ?? join(tmpdir(), 'packyard-bench-corpus');

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** resident memory of the program and of each of its edge workers (its children), MiB */
function programRss(pid: number): string {
  const children = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && parentOf(entry) === String(pid));
  const rssMib = (process: string) => Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${process}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  const workers = children.map(rssMib);
  return `${rssMib(String(pid)) + workers.reduce((a, b) => a + b, 0)} MiB (main process ${rssMib(String(pid))}, edge workers ${workers.join(' and ')})`;
}

/** the parent pid of a process, undefined once it is gone */
function parentOf(pid: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1];
  } catch {
    return undefined;
  }
}

/** what a kept directory holds, beside it: whose, where, and how many packages per repository */
interface Seeded {
  email: string;
  workspaceId: string;
  packages: number;
}

/** an account token's session: seeding outlasts the ID token a sign-in gives */
const lastingSession = async (user: ApiSession) => user.as((await user.call<{ token: string }>('POST', '/user/tokens', { name: 'restart bench', scopes: ['read', 'publish', 'admin'] })).body.token);

/** REPOSITORIES repositories made through the API; what the loop fetches from them */
async function seed(packyard: RunningPackyard): Promise<{ probes: FetchProbe[]; seeded: Seeded }> {
  const probes: FetchProbe[] = [];
  const rpmCount = Math.floor(REPOSITORIES / 4);
  const [debs, rpms] = await Promise.all([buildCorpus('deb', PACKAGES, cacheDir), rpmCount ? buildCorpus('rpm', PACKAGES, cacheDir) : []]);
  const user = await registerUser(packyard);
  const session = await lastingSession(user);
  const slug = `restart-${Date.now().toString(36)}`;
  const workspaceId = (await session.call<{ id: string }>('POST', '/workspaces', { name: slug, slug, description: '' })).body.id;

  const seedingStarted = performance.now();
  let next = 0;
  let seeded = 0;
  const seeder = async () => {
    for (let index = next++; index < REPOSITORIES; index = next++) {
      const kind = index < rpmCount ? 'RPM' : 'DEB';
      // bench-00000 is the corpus's first package, in every repository of either kind
      probes.push(...(await makeServedRepository(packyard, session, { workspaceId, slug, name: `repo-${index}`, kind, files: kind === 'RPM' ? rpms : debs, packageName: 'bench-00000' })));
      if (++seeded % Math.max(1, Math.round(REPOSITORIES / 10)) === 0) console.log(`seeded ${seeded} of ${REPOSITORIES} repositories in ${seconds(performance.now() - seedingStarted)}`);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, seeder));
  console.log(`${REPOSITORIES} repositories (${rpmCount} RPM) × ${PACKAGES} packages seeded through the API in ${seconds(performance.now() - seedingStarted)}`);
  return { probes, seeded: { email: user.email, workspaceId, packages: PACKAGES } };
}

/** the kept repositories grown to PACKAGES packages each, through the API: the next packages of the corpus uploaded to each */
async function grow(packyard: RunningPackyard, seeded: Seeded): Promise<Seeded> {
  const [debs, rpms] = await Promise.all([buildCorpus('deb', PACKAGES, cacheDir), buildCorpus('rpm', PACKAGES, cacheDir)]);
  const session = await lastingSession(await signIn(packyard, seeded.email));
  const repositories = (await session.call<{ id: string; kind: 'DEB' | 'RPM' }[]>('GET', `/workspaces/${seeded.workspaceId}/repos`)).body;
  const started = performance.now();
  let next = 0;
  let grown = 0;
  const grower = async () => {
    for (let index = next++; index < repositories.length; index = next++) {
      const { id, kind } = repositories[index];
      const files = (kind === 'RPM' ? rpms : debs).slice(seeded.packages);
      // several uploads at once per repository: its publisher builds one generation for the packages that arrived meanwhile
      await Promise.all(Array.from({ length: UPLOADS_PER_REPOSITORY }, (_, lane) => uploadPackages(packyard, session, { workspaceId: seeded.workspaceId, repositoryId: id, kind, files: files.filter((_, at) => at % UPLOADS_PER_REPOSITORY === lane) })));
      if (++grown % Math.max(1, Math.round(repositories.length / 20)) === 0) console.log(`grew ${grown} of ${repositories.length} repositories in ${seconds(performance.now() - started)}`);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, grower));
  console.log(`${repositories.length} repositories grown from ${seeded.packages} to ${PACKAGES} packages through the API in ${seconds(performance.now() - started)}`);
  return { ...seeded, packages: PACKAGES };
}

/** the seeded repository a URL is below */
const repositoryOf = (url: string) => /\/repo-\d+\//.exec(url)?.[0];

/**
 * The probes in the order a fleet of clients of every repository sends them: each
 * repository's first probe, then each one's second…, so that after a restart the loop's
 * first requests reach every repository (one per repository), not the files of the first few.
 */
function acrossRepositories(probes: readonly FetchProbe[]): FetchProbe[] {
  const byRepository = new Map<string | undefined, FetchProbe[]>();
  for (const probe of probes) {
    const repository = repositoryOf(probe.url);
    const list = byRepository.get(repository) ?? [];
    list.push(probe);
    byRepository.set(repository, list);
  }
  const lists = [...byRepository.values()];
  const rounds = Math.max(...lists.map((list) => list.length));
  return Array.from({ length: rounds }, (_, round) => lists.flatMap((list) => list[round] ?? [])).flat();
}

async function main() {
  const keptDir = process.env.BENCH_DATA_DIR && resolve(process.env.BENCH_DATA_DIR);
  const dataDir = keptDir ?? (await mkdtemp(join(tmpdir(), 'packyard-restart-bench-')));
  if (keptDir) await mkdir(keptDir, { recursive: true });
  // beside the data, not in it: the program owns its directory
  const seededProbes = `${dataDir}.probes.json`;
  const seededRecord = `${dataDir}.seed.json`;
  const port = await freePort();
  const start = () => startPackyard({ bin: BUNDLE, dataDir, env: { PORT: String(port) }, timeoutMs: 300_000, edgeWorkers: 'program default', cpuProfileDir: process.env.BENCH_PROFILE_DIR });
  let packyard: RunningPackyard = await start();
  try {
    // a kept directory's fetches, at this run's port
    const kept = keptDir && existsSync(seededProbes) && (JSON.parse(await readFile(seededProbes, 'utf8')) as FetchProbe[]).map((probe) => ({ ...probe, url: new URL(new URL(probe.url).pathname, packyard.url).href }));
    let probes: FetchProbe[];
    if (kept) {
      probes = kept;
      const seeded = existsSync(seededRecord) ? (JSON.parse(await readFile(seededRecord, 'utf8')) as Seeded) : undefined;
      if (seeded && seeded.packages < PACKAGES) await writeFile(seededRecord, JSON.stringify(await grow(packyard, seeded)));
    } else {
      const made = await seed(packyard);
      probes = made.probes;
      if (keptDir) await Promise.all([writeFile(seededProbes, JSON.stringify(probes)), writeFile(seededRecord, JSON.stringify(made.seeded))]);
    }
    console.log(`${probes.length} fetches in the loop, ${FETCHERS} at a time, across the repositories`);
    const loop = startFetchLoop(acrossRepositories(probes), FETCHERS);
    try {
      await loop.servedSince(0, 1, 600_000);
      const cycleStarted = Date.now();
      await loop.servedSince(cycleStarted, 1, 600_000);
      console.log(`running program: the loop fetches every file once in ${seconds(Date.now() - cycleStarted)} (the resolution of the last "served" time below), RSS ${programRss(packyard.child.pid!)}`);
      const restartsFrom = Date.now();
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        const load = loadavg()[0];
        await packyard.stop(signal);
        const startedAt = Date.now();
        packyard = await start();
        const healthyMs = Date.now() - startedAt;
        await loop.servedSince(startedAt, 1, 600_000);
        const servedMs = Date.now() - startedAt;
        const failures = loop.failuresSince(startedAt);
        // a repository is loaded by its first request after the start: when each got its first answer, and how long that took
        const firsts = new Map<string, { at: number; ms: number }>();
        for (const outcome of loop.outcomes) {
          const repository = repositoryOf(outcome.url);
          // fetches sent after the start only (one the old process answered may end after it)
          if (outcome.ok && outcome.at - outcome.ms >= startedAt && repository && !firsts.has(repository)) firsts.set(repository, { at: outcome.at - startedAt, ms: outcome.ms });
        }
        const firstMs = [...firsts.values()].map((first) => first.ms).sort((a, b) => a - b);
        const firstAt = [...firsts.values()].map((first) => first.at);
        const down = loop.outcomes.filter((outcome) => !outcome.ok && outcome.down && outcome.at >= startedAt).length;
        console.log(
          `${signal} restart: healthy ${seconds(healthyMs)} after the start, every repository served ${seconds(Math.max(...firstAt))} after it (target 5 s; their first answers ${seconds(Math.min(...firstAt))}–${seconds(Math.max(...firstAt))}, ` +
            `each took ${Math.round(firstMs[firstMs.length >> 1])} ms median, ${Math.round(firstMs.at(-1)!)} ms at most), every fetch of the loop answered again ${seconds(servedMs)} after it; ` +
            `${failures.length} failed fetches, ${down} refused while the port was closed; RSS ${programRss(packyard.child.pid!)}; load ${load.toFixed(2)} before`,
        );
        for (const failure of failures.slice(0, 5)) console.log(`  ${failure}`);
      }
      const failed = loop.failuresSince(restartsFrom).length;
      console.log(failed ? `${failed} fetches failed across the restarts` : 'no fetch failed across the restarts');
      process.exitCode = failed ? 1 : 0;
    } finally {
      await loop.stop();
    }
  } finally {
    await packyard.stop('SIGTERM');
    if (!keptDir) await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
