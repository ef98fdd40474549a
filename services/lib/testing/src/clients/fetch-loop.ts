import { gunzipSync } from 'node:zlib';
import { waitFor } from '../wait-for';

/** One file an apt or dnf client fetches, with what its 200 body must hold. */
export interface FetchProbe {
  url: string;
  headers: Record<string, string>;
  /** what a 200 body must contain, when it says so */
  contains?: string;
}

/** a fetch answered (200, with what it had to contain), not answered because nothing listened ("down"), or failed */
export type FetchOutcome = { url: string; at: number } & ({ ok: true; ms: number } | { ok: false; down: true } | { ok: false; down: false; what: string });

export interface FetchLoop {
  /** every fetch so far, in the order they ended */
  outcomes: FetchOutcome[];
  /** resolves once every probe was answered 200 at least `times` times after `since` (ms since the epoch) */
  servedSince(since: number, times: number, timeoutMs?: number): Promise<void>;
  /** the failures after `since`, as `url: what` (a refused or reset connection is "down", not a failure) */
  failuresSince(since: number): string[];
  stop(): Promise<void>;
}

const basic = (token: string) => ({ authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` });
const CONNECTION_LOST = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

/**
 * Fetches the probes in turn, `workers` at a time, until stopped, as clients across a
 * restart would; probes pushed onto the array meanwhile join in. A non-200 answer, or a
 * 200 without what it had to contain, is a failure.
 */
export function startFetchLoop(probes: readonly FetchProbe[], workers = 2): FetchLoop {
  const outcomes: FetchOutcome[] = [];
  let running = true;
  const worker = async (offset: number) => {
    for (let index = offset; running; index += workers) {
      const { url, contains, headers } = probes[index % probes.length];
      const started = performance.now();
      try {
        const response = await fetch(url, { headers, signal: AbortSignal.timeout(20_000) });
        const body = await response.text();
        const at = Date.now();
        if (response.status !== 200) outcomes.push({ ok: false, down: false, at, url, what: `${response.status} ${body.slice(0, 80)}` });
        else if (contains && !body.includes(contains)) outcomes.push({ ok: false, down: false, at, url, what: `200 without ${JSON.stringify(contains)}` });
        else outcomes.push({ ok: true, ms: performance.now() - started, at, url });
      } catch (error) {
        // nothing listens, or the process died with the request in flight
        const down = CONNECTION_LOST.has((error as { cause?: { code?: string } }).cause?.code ?? '');
        outcomes.push(down ? { ok: false, down: true, at: Date.now(), url } : { ok: false, down: false, at: Date.now(), url, what: String(error) });
        if (down) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const loops = Array.from({ length: workers }, (_, offset) => worker(offset));
  return {
    outcomes,
    servedSince: async (since, times, timeoutMs = 120_000) => {
      // outcomes end in time order: only those since `since` are counted (the loop may have run for long)
      const servedEnough = () => {
        const served = new Map<string, number>();
        for (let index = outcomes.length - 1; index >= 0 && outcomes[index].at >= since; index--) {
          const outcome = outcomes[index];
          if (outcome.ok) served.set(outcome.url, (served.get(outcome.url) ?? 0) + 1);
        }
        return probes.every(({ url }) => (served.get(url) ?? 0) >= times);
      };
      await waitFor(`every probe served ${times} times`, async () => (servedEnough() ? true : undefined), { timeoutMs, intervalMs: 50 });
    },
    failuresSince: (since) => outcomes.filter((o) => !o.ok && !o.down && o.at >= since).map((o) => `${o.url}: ${'what' in o ? o.what : ''}`),
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/**
 * What apt (DEB: InRelease, Packages, the package's pool file) or dnf (RPM: repomd.xml, its
 * signature, the .rpm) fetches from a repository once `packageName` is published in
 * debian/bookworm (main, amd64) or el/9, and the two public key files (no token). Waits until
 * the package is listed, so every probe answers 200 when this resolves.
 */
export async function repositoryProbes(repositoryUrl: string, kind: 'DEB' | 'RPM', token: string, packageName: string, timeoutMs = 120_000): Promise<FetchProbe[]> {
  const headers = basic(token);
  const keys: FetchProbe[] = [
    { url: `${repositoryUrl}/keyring.gpg`, headers: {} },
    { url: `${repositoryUrl}/gpg.key`, headers: {}, contains: 'BEGIN PGP PUBLIC KEY BLOCK' },
  ];
  if (kind === 'DEB') {
    const packagesUrl = `${repositoryUrl}/debian/dists/bookworm/main/binary-amd64/Packages`;
    const stanza = `Package: ${packageName}\n`;
    const filename = await waitFor(
      `${packageName} in Packages`,
      async () => {
        const packages = await (await fetch(packagesUrl, { headers })).text();
        const at = packages.indexOf(stanza);
        return at < 0 ? undefined : /^Filename: (.+)$/m.exec(packages.slice(at))?.[1];
      },
      { timeoutMs },
    );
    return [{ url: `${repositoryUrl}/debian/dists/bookworm/InRelease`, headers }, { url: packagesUrl, headers, contains: stanza }, { url: `${repositoryUrl}/debian/${filename}`, headers }, ...keys];
  }
  const base = `${repositoryUrl}/el/9`;
  const location = await waitFor(
    `${packageName} in primary.xml`,
    async () => {
      const repomd = await (await fetch(`${base}/repodata/repomd.xml`, { headers })).text();
      const primary = /<data type="primary">[\s\S]*?<location href="([^"]+)"/.exec(repomd)?.[1];
      if (!primary) return undefined;
      const xml = gunzipSync(Buffer.from(await (await fetch(`${base}/${primary}`, { headers })).arrayBuffer())).toString('utf8');
      const at = xml.indexOf(`<name>${packageName}</name>`);
      return at < 0 ? undefined : /<location href="([^"]+\.rpm)"/.exec(xml.slice(at))?.[1];
    },
    { timeoutMs },
  );
  return [
    { url: `${base}/repodata/repomd.xml`, headers, contains: '<data type="primary">' },
    { url: `${base}/repodata/repomd.xml.asc`, headers },
    { url: `${base}/${location}`, headers },
    ...keys,
  ];
}
