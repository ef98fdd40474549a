import { createHash, type Hash } from 'node:crypto';
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

/** lines hashed between two kept hash states */
const CHUNK_LINES = 1024;

/** a package as the digest names it: its id, its bytes and where it was uploaded to */
const lineOf = (pkg: PublishablePackage) => `\n${pkg.id} ${pkg.sha256} ${pkg.distribution}`;

/** lines in their packages' id order: a line starts with its package's id, and ids are UUIDs of one length */
const inIdOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** what a distribution's last digest was made of */
interface Digested {
  header: string;
  /** the packages, by object: the package sets keep a package's object while it is unchanged */
  members: Set<PublishablePackage>;
  lines: string[];
  /** the hash after the header (states[0]) and after each whole chunk of CHUNK_LINES lines */
  states: Hash[];
}

/**
 * The inputs digest of a distribution's generation: SHA-256 over what it is made of (the
 * builders' revision, the repository's layout and names, which appear in Release and in
 * URLs, every visible package in id order, and the advisories applying to it, for
 * updateinfo.xml). The signing keys are not in it: a key change forces the next build
 * instead. A generation whose inputs digest is the current one's is not built again.
 *
 * What changed since a distribution's last digest is found by package object, its lines are
 * merged into the ones kept in id order, and the hash resumes from the state kept before the
 * first line that differs: one more package in 100,000 hashes half the lines on average, not
 * all of them after sorting, joining and comparing 100,000 strings (170 ms of the event
 * loop per build here).
 */
export class InputsDigests {
  private readonly lines = new WeakMap<PublishablePackage, string>();
  private readonly digested = new RecentlyUsed<string, Digested>(KEPT_DISTRIBUTIONS);

  /** the digest of `stream`'s next generation (the stream names the repository and distribution) */
  of(stream: string, repository: PublishedRepository, target: Distribution, packages: readonly PublishablePackage[], advisories: readonly Advisory[]): string {
    const header = JSON.stringify([BUILDER_REVISION, repository.kind, repository.workspaceSlug, repository.name, repository.codename, repository.component, target.distro, target.version]);
    const before = this.digested.get(stream);
    const now = before?.header === header ? this.changed(before, packages) : this.whole(header, packages);
    this.digested.set(stream, now);
    const hash = resumed(now, before?.header === header ? firstDifference(before.lines, now.lines) : 0);
    // as published: only the packages that apply to this distribution, in updateinfo's order
    for (const advisory of advisories) hash.update(`\n${JSON.stringify(AdvisoryMessage.toJSON(advisory))}`);
    return hash.digest('hex');
  }

  private whole(header: string, packages: readonly PublishablePackage[]): Digested {
    const hash = createHash('sha256').update(header);
    return { header, members: new Set(packages), lines: packages.map((pkg) => this.lineFor(pkg)).sort(inIdOrder), states: [hash] };
  }

  /** `before` with the packages gone from it and the ones new to it (a package changed is another object) */
  private changed(before: Digested, packages: readonly PublishablePackage[]): Digested {
    const added = packages.filter((pkg) => !before.members.has(pkg));
    const removedCount = before.members.size - (packages.length - added.length);
    let members: Set<PublishablePackage>;
    let lines = before.lines;
    if (removedCount === 0) {
      // the kept set is this distribution's alone, and replaced by this one
      members = before.members;
      for (const pkg of added) members.add(pkg);
    } else {
      members = new Set(packages);
      const removed = new Set<string>();
      for (const pkg of before.members) if (!members.has(pkg)) removed.add(this.lineFor(pkg));
      lines = lines.filter((line) => !removed.has(line));
    }
    return { header: before.header, members, lines: merged(lines, added.map((pkg) => this.lineFor(pkg)).sort(inIdOrder)), states: before.states };
  }

  private lineFor(pkg: PublishablePackage): string {
    let line = this.lines.get(pkg);
    if (line === undefined) this.lines.set(pkg, (line = lineOf(pkg)));
    return line;
  }
}

/** where two lists in id order first differ (the shorter one's length if one starts the other) */
function firstDifference(a: readonly string[], b: readonly string[]): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a[index] === b[index]) index++;
  return index;
}

/**
 * The hash of `digested`'s header and lines, from the state kept before the chunk holding
 * line `from` (the lines before it are the ones the state was made of); the states of the
 * chunks after it are made again and kept.
 */
function resumed(digested: Digested, from: number): Hash {
  const { lines, states } = digested;
  const chunk = Math.min(Math.floor(from / CHUNK_LINES), states.length - 1);
  states.length = chunk + 1;
  const hash = states[chunk].copy();
  let start = chunk * CHUNK_LINES;
  for (; start + CHUNK_LINES <= lines.length; start += CHUNK_LINES) {
    hash.update(lines.slice(start, start + CHUNK_LINES).join(''));
    states.push(hash.copy());
  }
  return hash.update(lines.slice(start).join(''));
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
