import { compareDebVersions, compareRpmVersions } from '@packyard/formats';
import type { PackageDocument } from '../projections/packages.projection';
import type { RetentionPolicyValues } from './retention.decider';

const DAY_MS = 86_400_000;

/**
 * The packages a policy lets go, oldest last kept first: per (name, distribution,
 * architecture) every version after the newest `keepVersions` (in the package manager's
 * order), except those downloaded within `keepDownloadedDays` of `now`. Pure, so the dry run
 * and the deletion can never disagree.
 */
export function retentionPlan(packages: readonly PackageDocument[], policy: RetentionPolicyValues, now: Date): PackageDocument[] {
  if (policy.keepVersions <= 0) return [];
  const groups = new Map<string, PackageDocument[]>();
  for (const pkg of packages) {
    const key = [pkg.name, pkg.distribution, pkg.architecture].join('\0');
    groups.set(key, [...(groups.get(key) ?? []), pkg]);
  }
  const protectedSince = policy.keepDownloadedDays > 0 ? now.getTime() - policy.keepDownloadedDays * DAY_MS : Infinity;
  const recentlyDownloaded = (pkg: PackageDocument) => Boolean(pkg.lastDownloadedAt) && Date.parse(pkg.lastDownloadedAt!) >= protectedSince;
  const goes: PackageDocument[] = [];
  for (const group of groups.values()) {
    const compare = group[0].kind === 'RPM' ? compareRpmVersions : compareDebVersions;
    const newestFirst = [...group].sort((a, b) => compare(b.version, a.version) || b.publishedAt.localeCompare(a.publishedAt));
    goes.push(...newestFirst.slice(policy.keepVersions).filter((pkg) => !recentlyDownloaded(pkg)));
  }
  return goes;
}
