import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeb, buildRpmBatch, freePort, startPackyard, waitFor, type RunningPackyard } from '@packyard/testing';
import { registerUser } from '@packyard/testing/api-session';

// Issue #17 item 3: a restart of the program (SIGTERM, then kill -9) on the same data
// causes no 401/404/5xx to apt/dnf-style clients that were being served: a loop of
// InRelease, Packages, keyring, repomd.xml and key fetches across N repositories runs
// through both restarts. In single-node mode the port is closed while the process is
// down: a refused or reset connection is counted apart ("down"), never an answer.

const DEB_REPOSITORIES = 4;
const RPM_REPOSITORIES = 2;
// a start through tsx on a machine loaded by other work can take well over the harness's 30 s
const START_TIMEOUT_MS = 120_000;

interface Probe {
  url: string;
  /** what a 200 body must contain (the package the repository holds), when it says so */
  contains?: string;
}

type Outcome = { ok: true; ms: number; at: number } | { ok: false; down: true; at: number } | { ok: false; down: false; at: number; what: string };

describe('a restart of the program on the same data', () => {
  let packyard: RunningPackyard;
  let dataDir: string;
  let packagesDir: string;
  let port: number;
  const probes: { probe: Probe; auth: Record<string, string> }[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-restart-'));
    packagesDir = await mkdtemp(join(tmpdir(), 'packyard-restart-packages-'));
    port = await freePort();
    packyard = await startPackyard({ dataDir, env: { PORT: String(port) }, timeoutMs: START_TIMEOUT_MS });
    const session = await registerUser(packyard);
    const slug = `restart-${Date.now().toString(36)}`;
    const workspace = (await session.call<{ id: string }>('POST', '/workspaces', { name: slug, slug, description: '' })).body;
    const rpms = await buildRpmBatch(Array.from({ length: RPM_REPOSITORIES }, (_, index) => ({ name: `restart-rpm-${index}`, version: '1.0', release: '1', arch: 'noarch' as const })), packagesDir);
    for (let index = 0; index < DEB_REPOSITORIES + RPM_REPOSITORIES; index++) {
      const kind = index < DEB_REPOSITORIES ? 'DEB' : 'RPM';
      const name = `repo-${index}`;
      const repository = await session.call<{ id: string }>('POST', `/workspaces/${workspace.id}/repos`, { name, kind, codename: 'bookworm', component: 'main' });
      expect(repository.status).toBe(201);
      const token = (await session.call<{ token: string }>('POST', `/repos/${repository.body.id}/tokens`, { name: 'restart' })).body.token;
      const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
      const url = `${packyard.url}/${kind === 'DEB' ? 'deb' : 'rpm'}/${slug}/${name}`;
      // an .rpm is signed while its upload is claimed: the repository's first key (RSA-4096) must exist first
      await waitFor('the repository key', async () => ((await fetch(`${url}/gpg.key`)).status === 200 ? true : undefined), { timeoutMs: 120_000 });
      const file = kind === 'DEB' ? await buildDeb({ name: `restart-deb-${index}`, version: '1.0', arch: 'amd64', compression: 'gzip' }, packagesDir) : rpms[index - DEB_REPOSITORIES];
      const form = new FormData();
      form.set('distribution', kind === 'DEB' ? 'debian/bookworm' : 'el/9');
      form.set('file', new Blob([await readFile(file)]), basename(file));
      const upload = await fetch(`${packyard.url}/api/v1/workspaces/${workspace.id}/repos/${repository.body.id}/upload?wait=published`, { method: 'POST', headers: { authorization: `Bearer ${session.bearer}` }, body: form });
      // 202 on a loaded machine: the repository's first key (RSA-4096) and publication took over 30 s; the loop waits for it to be served
      expect([201, 202]).toContain(upload.status);
      const paths: Probe[] =
        kind === 'DEB'
          ? [
              { url: `${url}/debian/dists/bookworm/InRelease` },
              { url: `${url}/debian/dists/bookworm/main/binary-amd64/Packages`, contains: `Package: restart-deb-${index}\n` },
              { url: `${url}/keyring.gpg` },
              { url: `${url}/gpg.key`, contains: 'BEGIN PGP PUBLIC KEY BLOCK' },
            ]
          : [{ url: `${url}/el/9/repodata/repomd.xml`, contains: '<data type="primary">' }, { url: `${url}/el/9/repodata/repomd.xml.asc` }, { url: `${url}/gpg.key`, contains: 'BEGIN PGP PUBLIC KEY BLOCK' }];
      probes.push(...paths.map((probe) => ({ probe, auth: probe.url.endsWith('gpg.key') || probe.url.endsWith('keyring.gpg') ? {} : auth })));
    }
  }, 240_000);

  afterAll(async () => {
    await packyard?.stop('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (packagesDir) await rm(packagesDir, { recursive: true, force: true });
  });

  /** fetches every probe in turn, two at a time, until stopped */
  function fetchLoop() {
    const outcomes: (Outcome & { url: string })[] = [];
    let running = true;
    const worker = async (offset: number) => {
      for (let index = offset; running; index += 2) {
        const { probe, auth } = probes[index % probes.length];
        const started = performance.now();
        try {
          const response = await fetch(probe.url, { headers: auth, signal: AbortSignal.timeout(20_000) });
          const body = await response.text();
          const at = Date.now();
          if (response.status !== 200) outcomes.push({ ok: false, down: false, at, url: probe.url, what: `${response.status} ${body.slice(0, 80)}` });
          else if (probe.contains && !body.includes(probe.contains)) outcomes.push({ ok: false, down: false, at, url: probe.url, what: `200 without ${JSON.stringify(probe.contains)}` });
          else outcomes.push({ ok: true, ms: performance.now() - started, at, url: probe.url });
        } catch (error) {
          // the process is down: nothing listens, or it died with the request in flight
          const code = (error as { cause?: { code?: string } }).cause?.code ?? '';
          const down = ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].includes(code);
          outcomes.push(down ? { ok: false, down: true, at: Date.now(), url: probe.url } : { ok: false, down: false, at: Date.now(), url: probe.url, what: String(error) });
          if (down) await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const workers = [worker(0), worker(1)];
    return {
      outcomes,
      /** resolves once every probe was answered 200 at least `times` times after `since` */
      servedSince: (since: number, times: number) =>
        waitFor(
          `every probe served ${times} times`,
          async () => (probes.every(({ probe }) => outcomes.filter((o) => o.ok && o.at >= since && o.url === probe.url).length >= times) ? true : undefined),
          { timeoutMs: 60_000, intervalMs: 50 },
        ),
      stop: async () => {
        running = false;
        await Promise.all(workers);
      },
    };
  }

  it('answers apt/dnf-style fetches with 200 across a SIGTERM restart and a kill -9, from the first healthy answer on', async () => {
    const loop = fetchLoop();
    const figures: string[] = [];
    let servedBefore = Infinity;
    try {
      // every repository served before the first restart (the loop counts from here)
      await loop.servedSince(0, 2);
      servedBefore = Date.now();
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        await packyard.stop(signal);
        const restarted = performance.now();
        packyard = await startPackyard({ dataDir, env: { PORT: String(port) }, timeoutMs: START_TIMEOUT_MS });
        const healthyAt = Date.now();
        const healthMs = Math.round(performance.now() - restarted);
        await loop.servedSince(healthyAt, 3);
        const after = loop.outcomes.filter((outcome) => outcome.at >= healthyAt);
        const slowest = Math.max(...after.filter((outcome) => outcome.ok).map((outcome) => (outcome.ok ? outcome.ms : 0)));
        figures.push(`${signal}: healthy ${healthMs} ms after the start; slowest answer after that ${Math.round(slowest)} ms`);
      }
    } finally {
      await loop.stop();
    }
    const failures = loop.outcomes.filter((outcome) => !outcome.ok && !outcome.down && outcome.at >= servedBefore);
    const down = loop.outcomes.filter((outcome) => !outcome.ok && outcome.down).length;
    console.log(`${probes.length} probes over ${DEB_REPOSITORIES + RPM_REPOSITORIES} repositories; ${loop.outcomes.length} fetches, ${down} while the port was down; ${figures.join('; ')}`);
    expect(failures.map((failure) => `${failure.url}: ${'what' in failure ? failure.what : ''}`)).toEqual([]);
  }, 240_000);
});
