import { createHash } from 'node:crypto';
import { RecentlyUsed } from '@packyard/platform';
import type { Distribution } from '@packyard/formats';
import type { Advisory } from '@packyard/formats/recorded-distributions';
import { Advisory as AdvisoryMessage } from '@packyard/proto/packyard/repository/v1/advisories';
import type { PublishablePackage } from '../packages/publishable-package';
import type { PublishedRepository } from './publication-layout';

/**
 * What the builders make of the same packages: raise it when a change to the builders
 * (a new index file, another field) must reach repositories whose packages did not change.
 * 2: RPM distributions publish their source packages' repository (SRPMS/, empty too), DEB
 * ones Sources indices (and debian-installer/debug ones once they hold such packages), and
 * .xz indices are written by liblzma (lzma-native).
 */
const BUILDER_REVISION = 2;

/** distributions whose package lines are kept in id order (a few per repository, for the repositories built last) */
const KEPT_DISTRIBUTIONS = 1024;

/** a package as the digest names it: its id, its bytes and where it was uploaded to */
const lineOf = (pkg: PublishablePackage) => `\n${pkg.id} ${pkg.sha256} ${pkg.distribution}`;

/** lines in their packages' id order: a line starts with its package's id, and ids are UUIDs of one length */
const inIdOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The inputs digest of a distribution's generation: SHA-256 over what it is made of (the
 * builders' revision, the repository's layout and names, which appear in Release and in
 * URLs, every visible package in id order, and the advisories applying to it, for
 * updateinfo.xml). The signing keys are not in it: a key change forces the next build
 * instead. A generation whose inputs digest is the current one's is not built again.
 *
 * Its packages' lines are kept in id order per distribution from build to build, so the
 * lines of one more package in 100,000 are merged into them, not sorted with all the others
 * (sorting 100,000 ids took 50–150 ms of the event loop per build here).
 */
export class InputsDigests {
  private readonly lines = new WeakMap<PublishablePackage, string>();
  private readonly sorted = new RecentlyUsed<string, { lines: string[]; members: Set<string> }>(KEPT_DISTRIBUTIONS);

  /** the digest of `stream`'s next generation (the stream names the repository and distribution) */
  of(stream: string, repository: PublishedRepository, target: Distribution, packages: readonly PublishablePackage[], advisories: readonly Advisory[]): string {
    const current = packages.map((pkg) => this.lineFor(pkg));
    const members = new Set(current);
    const before = this.sorted.get(stream);
    const lines = before ? merged(before.lines.filter((line) => members.has(line)), current.filter((line) => !before.members.has(line)).sort(inIdOrder)) : current.sort(inIdOrder);
    this.sorted.set(stream, { lines, members });
    const hash = createHash('sha256');
    hash.update(JSON.stringify([BUILDER_REVISION, repository.kind, repository.workspaceSlug, repository.name, repository.codename, repository.component, target.distro, target.version]));
    hash.update(lines.join(''));
    // as published: only the packages that apply to this distribution, in updateinfo's order
    for (const advisory of advisories) hash.update(`\n${JSON.stringify(AdvisoryMessage.toJSON(advisory))}`);
    return hash.digest('hex');
  }

  private lineFor(pkg: PublishablePackage): string {
    let line = this.lines.get(pkg);
    if (line === undefined) this.lines.set(pkg, (line = lineOf(pkg)));
    return line;
  }
}

/** two lists in id order as one */
function merged(a: readonly string[], b: readonly string[]): string[] {
  if (b.length === 0) return a as string[];
  const out: string[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = inIdOrder(a[i], b[j]) <= 0 ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}
