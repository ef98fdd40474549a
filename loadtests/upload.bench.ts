/**
 * Upload throughput and server memory: a valid .deb of just under 100 MiB (random,
 * incompressible data) POSTed through the API on loopback, streamed from disk by the
 * client; prints MB/s per upload (request sent → package stored and answered) and the
 * server's peak RSS above its idle RSS, sampled from /proc every 5 ms.
 * Run: npx tsx loadtests/upload.bench.ts   (BENCH_RUNS: uploads, default 3)
 * Targets: ≥ 150 MB/s, < 64 MiB above idle.
 */
import { randomBytes } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerUser } from '@packyard/testing/api-session';
import { startPackyard } from '@packyard/testing';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MiB = 1024 * 1024;
const DATA_BYTES = 100 * MiB - 64 * 1024;

const rssOf = async (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

async function main() {
  const work = await mkdtemp(join(tmpdir(), 'packyard-upload-bench-'));
  const packyard = await startPackyard();
  try {
    const session = await registerUser(packyard);
    const workspace = (await session.call('POST', '/workspaces', { name: 'Upload bench', slug: `upload-${Date.now()}` })).body;
    const repository = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'big', kind: 'DEB' })).body;
    const url = `${packyard.url}/api/v1/workspaces/${workspace.id}/repos/${repository.id}/upload`;
    const post = async (file: string, name: string) => {
      const form = new FormData();
      form.append('distribution', 'ubuntu/noble');
      form.append('file', await openAsBlob(file), name);
      const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${session.bearer}` }, body: form });
      if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { sizeBytes: number };
    };

    const small = join(work, 'warm.deb');
    await writeFile(small, await craftDeb({ control: validControlText('warm-up') }));
    await post(small, 'warm-up.deb');
    const files: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      const file = join(work, `big-${run}.deb`);
      await writeFile(file, await craftDeb({ control: validControlText(`big-${run}`), dataFiles: [{ name: './usr/share/big/blob', data: randomBytes(DATA_BYTES) }] }));
      files.push(file);
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    global.gc?.();
    const pid = packyard.child.pid!;
    for (const [run, file] of files.entries()) {
      const idle = await rssOf(pid);
      let peak = idle;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await rssOf(pid));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const started = performance.now();
      const answer = await post(file, `big-${run}.deb`);
      const seconds = (performance.now() - started) / 1000;
      sampling = false;
      await sampler;
      console.log(
        `upload ${run + 1}: ${(answer.sizeBytes / MiB).toFixed(1)} MiB in ${seconds.toFixed(3)} s = ${(answer.sizeBytes / 1e6 / seconds).toFixed(0)} MB/s; ` +
          `server RSS idle ${(idle / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB (+${((peak - idle) / MiB).toFixed(1)} MiB)`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await packyard.dispose();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
