import { gunzipSync } from 'node:zlib';
import { indexTargets, parseDistribution, type Distribution } from '@packyard/formats';
import { usageError } from './command';
import { ClientError, EXIT } from './exit-codes';
import type { Package, Repository } from './api-client';

export interface EdgeWaitOptions {
  /** `{origin}/deb/{workspace}/{repo}` or `/rpm/…`, as the snippets give it */
  repositoryUrl: string;
  repository: Repository;
  /** a token the edge accepts (an account token with `read`, or a repository token) */
  token: string;
  timeoutMs: number;
  pollMs?: number;
}

/** the edge's files as apt and dnf fetch them: HTTP Basic with the token as user, empty password */
async function fetchEdge(url: string, token: string): Promise<Buffer | undefined> {
  const response = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` } }).catch(() => undefined);
  if (!response) return undefined;
  if (response.status === 401 || response.status === 403) throw new ClientError(EXIT.auth, `the edge refused the token (${response.status}) at ${url}; it needs the "read" scope`);
  return response.ok ? Buffer.from(await response.arrayBuffer()) : undefined;
}

/**
 * The gzipped Packages and Sources indices InRelease lists (its SHA256 section: ` <hash> <size> <path>`):
 * the form every APT index is stored in (above 4 MiB the plain one is listed but not served, as in Debian's archive).
 */
const packagesIndices = (inRelease: string) =>
  [...new Set([...inRelease.matchAll(/^ [0-9a-f]{64}\s+\d+\s+(\S+\/binary-[^/\s]+\/Packages\.gz|\S+\/source\/Sources\.gz)$/gm)].map((m) => m[1]))];

async function aptServes(base: string, target: Distribution, pkg: Package, token: string): Promise<boolean> {
  const dists = `${base}/${target.distro}/dists/${target.version}`;
  const inRelease = await fetchEdge(`${dists}/InRelease`, token);
  if (!inRelease) return false;
  for (const path of packagesIndices(inRelease.toString('utf8'))) {
    const packages = await fetchEdge(`${dists}/${path}`, token);
    // a Packages stanza's Filename, or a .dsc in the Files list of a Sources stanza
    const listed = new RegExp(`^(Filename: \\S*/| [0-9a-f]{32} \\d+ )${escapeRegExp(pkg.filename)}$`, 'm');
    if (packages && listed.test(gunzipSync(packages).toString('utf8'))) return true;
  }
  return false;
}

async function yumServes(base: string, target: Distribution, pkg: Package, token: string): Promise<boolean> {
  // a source package (architecture src) is in the distribution's source repository, SRPMS/
  const root = `${base}/${target.distro}/${target.version}${pkg.architecture === 'src' ? '/SRPMS' : ''}`;
  const repomd = await fetchEdge(`${root}/repodata/repomd.xml`, token);
  const primaryHref = repomd && /<data type="primary">[\s\S]*?<location href="([^"]+)"/.exec(repomd.toString('utf8'))?.[1];
  if (!primaryHref) return false;
  const primary = await fetchEdge(`${root}/${primaryHref}`, token);
  if (!primary) return false;
  const xml = primaryHref.endsWith('.gz') ? gunzipSync(primary).toString('utf8') : primary.toString('utf8');
  return new RegExp(`<location href="[^"]*/${escapeRegExp(pkg.filename)}"`).test(xml);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Returns once the edge serves the package in every index its distribution reaches (the signed
 * InRelease → Packages, or repomd.xml → primary), the same chain apt and dnf follow; throws a
 * ClientError with EXIT.server when that has not happened within the timeout.
 */
export async function waitUntilInstallable(pkg: Package, options: EdgeWaitOptions): Promise<void> {
  const targets = indexTargets(options.repository.kind, parseDistribution(pkg.distribution, options.repository.kind));
  const serves = options.repository.kind === 'DEB' ? aptServes : yumServes;
  const deadline = Date.now() + options.timeoutMs;
  let pending = targets;
  for (;;) {
    const served = await Promise.all(pending.map((target) => serves(options.repositoryUrl, target, pkg, options.token)));
    pending = pending.filter((_, index) => !served[index]);
    if (!pending.length) return;
    if (Date.now() > deadline) {
      throw new ClientError(EXIT.server, `${pkg.filename} is not served by ${options.repositoryUrl} after ${Math.round(options.timeoutMs / 1000)} s (missing in ${pending.map((t) => `${t.distro}/${t.version}`).join(', ')})`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
  }
}

export const DEFAULT_WAIT_SECONDS = 120;

export const WAIT_OPTIONS = { wait: { type: 'boolean', default: false }, timeout: { type: 'string' } } as const;

/** `--timeout SECONDS` of a command that can --wait, in ms */
export function waitTimeoutMs(values: Record<string, string | boolean | undefined>, command: string): number {
  const seconds = values.timeout === undefined ? DEFAULT_WAIT_SECONDS : Number(values.timeout);
  if (!Number.isFinite(seconds) || seconds <= 0) throw usageError(command, `--timeout must be a positive number of seconds, not "${values.timeout}"`);
  return seconds * 1000;
}
