/**
 * Publishing at scale (issue 17), the repository module's publishing on its real stores
 * (the publishing rig: SQLite, embedded bus, filesystem blobs, the signing module's
 * handlers in-process), with synthetic .deb records seeded in bulk:
 *   1. one repository of BENCH_PACKAGES packages (default 100,000): the first publication,
 *      then one more package → its signed index current (median of BENCH_RUNS), and RSS;
 *   2. BENCH_REPOSITORIES repositories (default 1,000) of BENCH_REPOSITORY_PACKAGES packages
 *      (default 200): every repository published, then a restart on the same data → settled
 *      (every change looked at, nothing left to build), generations built and signatures
 *      made by the restart (target 0), and RSS.
 * Every repository of the second case gets a copy of one RSA-4096 key (the rig's
 * registerSharedKey) instead of a generation of its own (3–7 s each here, over an hour for
 * 1,000): signatures cost the same, only the seeding is shorter (and the first publication
 * unseals one key instead of 1,000).
 * The publisher keeps the index text, compressed blocks and package sets of the
 * CACHED_REPOSITORIES (64) repositories built last; RSS is printed after each phase.
 * The edge's side of a restart (every repository served, zero failed fetches) is the
 * restart e2e suite's; upload → edge against reprepro and createrepo_c is publish.bench.ts.
 * Run: npx tsx loadtests/publish-scale.bench.ts   (a small check: BENCH_PACKAGES=2000
 * BENCH_REPOSITORIES=5 BENCH_REPOSITORY_PACKAGES=20 BENCH_RUNS=2)
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordUploaded, seedRepository, startPublishingRig, syntheticDeb } from '@packyard/repository/publishing/testing/publishing-rig';

const PACKAGES = Number(process.env.BENCH_PACKAGES ?? 100_000);
const REPOSITORIES = Number(process.env.BENCH_REPOSITORIES ?? 1_000);
const REPOSITORY_PACKAGES = Number(process.env.BENCH_REPOSITORY_PACKAGES ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const mib = () => `${Math.round(process.memoryUsage().rss / 1024 / 1024)} MiB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

async function oneLargeRepository(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'packyard-scale-large-'));
  const rig = await startPublishingRig(dataDir);
  try {
    const repositoryId = randomUUID();
    const packages = Array.from({ length: PACKAGES }, (_, index) => syntheticDeb(repositoryId, index));
    await seedRepository(rig.es, { id: repositoryId, kind: 'DEB', name: 'large' }, packages);
    let started = performance.now();
    await rig.publisher.start();
    await rig.publisher.settled();
    console.log(`1 repository of ${PACKAGES} packages: first publication of every distribution (key generation included) ${seconds(performance.now() - started)}, RSS ${mib()}`);
    const samples: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const added = syntheticDeb(repositoryId, PACKAGES + run);
      started = performance.now();
      await recordUploaded(rig.es, added);
      if (!(await rig.publisher.waitForPublication(repositoryId, added.id, 120_000))) throw new Error(`run ${run} did not publish`);
      // the first build after the start fills the index-text cache: not what one more package costs
      if (run > 0) samples.push(performance.now() - started);
    }
    console.log(`1 repository of ${PACKAGES} packages: +1 package → signed index current, median ${seconds(median(samples))} (${samples.length} runs), RSS ${mib()}`);
  } finally {
    await rig.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function manyRepositories(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'packyard-scale-many-'));
  let rig = await startPublishingRig(dataDir);
  try {
    for (let index = 0; index < REPOSITORIES; index++) {
      const repositoryId = randomUUID();
      await rig.registerSharedKey(repositoryId);
      await seedRepository(rig.es, { id: repositoryId, kind: 'DEB', name: `many-${index}` }, Array.from({ length: REPOSITORY_PACKAGES }, (_, n) => syntheticDeb(repositoryId, n)));
    }
    let started = performance.now();
    await rig.publisher.start();
    await rig.publisher.settled();
    console.log(`${REPOSITORIES} repositories × ${REPOSITORY_PACKAGES} packages: every repository published ${seconds(performance.now() - started)}, RSS ${mib()}`);
    const before = await rig.es.events.lastPosition();
    await rig.stop();
    started = performance.now();
    rig = await startPublishingRig(dataDir);
    await rig.publisher.start();
    await rig.publisher.settled();
    const built = (await rig.es.events.readAll(before, 10_000_000)).filter((event) => event.type === 'IndexBuilt').length;
    console.log(`${REPOSITORIES} repositories × ${REPOSITORY_PACKAGES} packages: restart → settled ${seconds(performance.now() - started)}, generations built ${built}, signatures ${rig.signatures()}, RSS ${mib()}`);
  } finally {
    await rig.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await oneLargeRepository();
await manyRepositories();
