import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeb, buildRpmBatch, freePort, startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { startFetchLoop, type FetchLoop, type FetchProbe } from '@packyard/testing/clients/fetch-loop';
import { makeServedRepository } from '@packyard/testing/clients/served-repository';

// Issue #17 item 3: a restart of the program (SIGTERM, then kill -9) on the same data
// causes no 401/404/5xx to apt/dnf-style clients that were being served: a loop of
// InRelease, Packages, package, keyring, repomd.xml and key fetches across every repository
// runs through the restarts. In single-node mode the port is closed while the process is
// down: a refused or reset connection is counted apart ("down"), never an answer.
// Start-up must not grow with the data: the time to health is measured with a few
// repositories and again with several times as many, and printed.

const SMALL = { deb: 3, rpm: 1 };
const LARGE = { deb: 18, rpm: 6 };
// a start through tsx on a machine loaded by other work can take well over the harness's 30 s
const START_TIMEOUT_MS = 120_000;
// repositories made at once: each needs its RSA-4096 key (seconds of CPU) before its first upload
const CREATE_CONCURRENCY = 4;
/** the generous bound on how much longer the start may take with the larger data (the figure is printed) */
const START_GROWTH_BOUND_MS = 15_000;
/** the same for delivery's own init, which reads nothing of the data */
const DELIVERY_INIT_GROWTH_BOUND_MS = 3_000;

const median = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0);

/** how long each module's init took at the last start, from its log ("module initialised") */
const initTimes = (output: string): Record<string, number> =>
  Object.fromEntries(
    output
      .split('\n')
      .filter((line) => line.includes('"msg":"module initialised"'))
      .map((line) => JSON.parse(line) as { module: string; ms: number })
      .map(({ module, ms }) => [module, ms]),
  );

describe('a restart of the program on the same data', () => {
  let packyard: RunningPackyard;
  let session: ApiSession;
  let dataDir: string;
  let packagesDir: string;
  let port: number;
  let slug: string;
  let workspaceId: string;
  let made = 0;
  const probes: FetchProbe[] = [];

  /** makes `deb` DEB and `rpm` RPM repositories, each with one package published, and adds their probes */
  async function addRepositories(deb: number, rpm: number) {
    const first = made;
    made += deb + rpm;
    const rpms = await buildRpmBatch(Array.from({ length: rpm }, (_, index) => ({ name: `restart-rpm-${first + deb + index}`, version: '1.0', release: '1', arch: 'noarch' as const })), packagesDir);
    const indices = Array.from({ length: deb + rpm }, (_, offset) => first + offset);
    const worker = async () => {
      for (let index = indices.shift(); index !== undefined; index = indices.shift()) {
        const isDeb = index < first + deb;
        probes.push(...(await addRepository(index, isDeb ? 'DEB' : 'RPM', isDeb ? undefined : rpms[index - first - deb])));
      }
    };
    await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
  }

  async function addRepository(index: number, kind: 'DEB' | 'RPM', rpmFile?: string): Promise<FetchProbe[]> {
    const packageName = `restart-${kind === 'DEB' ? 'deb' : 'rpm'}-${index}`;
    const file = rpmFile ?? (await buildDeb({ name: packageName, version: '1.0', arch: 'amd64', compression: 'gzip' }, packagesDir));
    // no ?wait=published (publish-wait.e2e.spec.ts tests it): the probes wait until the package is listed
    return makeServedRepository(packyard, session, { workspaceId, slug, name: `repo-${index}`, kind, files: [file], packageName });
  }

  const start = () => startPackyard({ dataDir, env: { PORT: String(port) }, timeoutMs: START_TIMEOUT_MS, edgeWorkers: 2 });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-restart-'));
    packagesDir = await mkdtemp(join(tmpdir(), 'packyard-restart-packages-'));
    port = await freePort();
    packyard = await start();
    session = await registerUser(packyard);
    slug = `restart-${Date.now().toString(36)}`;
    workspaceId = (await session.call<{ id: string }>('POST', '/workspaces', { name: slug, slug, description: '' })).body.id;
    await addRepositories(SMALL.deb, SMALL.rpm);
  }, 600_000);

  afterAll(async () => {
    await packyard?.stop('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (packagesDir) await rm(packagesDir, { recursive: true, force: true });
  });

  /** stops the program with `signal`, starts it on the same data; the time to health, and the slowest answer until every probe was served again */
  async function restart(loop: FetchLoop, signal: NodeJS.Signals) {
    await packyard.stop(signal);
    const started = performance.now();
    packyard = await start();
    const healthMs = Math.round(performance.now() - started);
    const healthyAt = Date.now();
    await loop.servedSince(healthyAt, 2);
    const everyProbeMs = Date.now() - healthyAt;
    const after = loop.outcomes.filter((outcome) => outcome.at >= healthyAt && outcome.ok);
    const slowestMs = Math.round(Math.max(...after.map((outcome) => (outcome.ok ? outcome.ms : 0))));
    // a repository is loaded by its first request after the start: what that answer cost, beside the rest
    const firstOfRepository = new Map<string, number>();
    const others: number[] = [];
    for (const outcome of after) {
      if (!outcome.ok) continue;
      const repository = /\/repo-\d+\//.exec(outcome.url)![0];
      if (firstOfRepository.has(repository)) others.push(outcome.ms);
      else firstOfRepository.set(repository, outcome.ms);
    }
    const inits = initTimes(packyard.output());
    const slowestInit = Object.entries(inits).reduce((a, b) => (b[1] > a[1] ? b : a));
    const figure = `${made} repositories, ${signal}: healthy ${healthMs} ms after the start (delivery initialised in ${inits.delivery} ms, the slowest module ${slowestInit[0]} in ${slowestInit[1]} ms), every probe served twice ${everyProbeMs} ms after that; a repository's first answer median ${median([...firstOfRepository.values()])} ms (max ${Math.round(Math.max(...firstOfRepository.values()))}), the others' median ${median(others)} ms, slowest answer ${slowestMs} ms`;
    return { healthMs, deliveryInitMs: inits.delivery, figure };
  }

  it('answers apt/dnf-style fetches with 200 across SIGTERM and kill -9 restarts, from the first healthy answer on, and starts as fast with six times the repositories', async () => {
    const loop = startFetchLoop(probes);
    const figures: string[] = [];
    const health: Record<string, number> = {};
    const deliveryInit: Record<string, number> = {};
    let servedBefore: number;
    try {
      await loop.servedSince(0, 2);
      servedBefore = Date.now();
      const small = await restart(loop, 'SIGTERM');
      health.small = small.healthMs;
      deliveryInit.small = small.deliveryInitMs;
      figures.push(small.figure);

      // the larger data: its probes join the loop once they are served (each was, by addRepository)
      await addRepositories(LARGE.deb - SMALL.deb, LARGE.rpm - SMALL.rpm);
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        const large = await restart(loop, signal);
        health[signal] = large.healthMs;
        deliveryInit[signal] = large.deliveryInitMs;
        figures.push(large.figure);
      }
    } finally {
      await loop.stop();
    }
    const down = loop.outcomes.filter((outcome) => !outcome.ok && outcome.down).length;
    console.log(`${probes.length} probes over ${made} repositories; ${loop.outcomes.length} fetches, ${down} while the port was down;\n  ${figures.join(';\n  ')}`);
    expect(loop.failuresSince(servedBefore)).toEqual([]);
    expect(health.SIGTERM).toBeLessThan(health.small + START_GROWTH_BOUND_MS);
    expect(deliveryInit.SIGTERM).toBeLessThan(deliveryInit.small + DELIVERY_INIT_GROWTH_BOUND_MS);
  }, 900_000);
});
