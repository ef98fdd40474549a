import type { DownloadLine, DownloadSeries, DownloadSummary, PackageDownloadTotal } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { DownloadBucketDocument } from './download-buckets';

export type SeriesGrouping = 'total' | 'version' | 'token';

export const TOP_PACKAGES = 5;

/** The counts of each bucket in `keys` (oldest first), one line per group, busiest line first. */
export function downloadSeries(buckets: readonly DownloadBucketDocument[], keys: readonly string[], grouping: SeriesGrouping): DownloadSeries {
  const slot = new Map(keys.map((key, index) => [key, index]));
  const lines = new Map<string, DownloadLine>();
  const add = (key: string, index: number, count: number) => {
    let line = lines.get(key);
    if (!line) lines.set(key, (line = { key, total: 0, counts: keys.map(() => 0) }));
    line.counts[index] += count;
    line.total += count;
  };
  if (grouping === 'total') lines.set('total', { key: 'total', total: 0, counts: keys.map(() => 0) });
  let total = 0;
  for (const bucket of buckets) {
    const index = slot.get(bucket.bucket);
    // a ring slot still holding a period older than the window
    if (index === undefined) continue;
    total += bucket.count;
    if (grouping === 'token') for (const [tokenId, count] of Object.entries(bucket.byToken)) add(tokenId, index, count);
    else add(grouping === 'version' ? bucket.version : 'total', index, bucket.count);
  }
  return { buckets: [...keys], lines: [...lines.values()].sort((a, b) => b.total - a.total || a.key.localeCompare(b.key)), total };
}

/**
 * An owner's downloads per bucket across their workspaces, per workspace, and the most
 * downloaded package names (per repository; the newest version downloaded is the one to open).
 */
export function downloadSummary(buckets: readonly DownloadBucketDocument[], keys: readonly string[]): DownloadSummary {
  const slot = new Map(keys.map((key, index) => [key, index]));
  const counts = keys.map(() => 0);
  const workspaces = new Map<string, number>();
  const packages = new Map<string, PackageDownloadTotal & { latest: [bucket: string, position: number] }>();
  let total = 0;
  for (const bucket of buckets) {
    const index = slot.get(bucket.bucket);
    if (index === undefined) continue;
    counts[index] += bucket.count;
    total += bucket.count;
    workspaces.set(bucket.workspaceId, (workspaces.get(bucket.workspaceId) ?? 0) + bucket.count);
    const key = `${bucket.repositoryId}|${bucket.name}`;
    const entry = packages.get(key) ?? { workspaceId: bucket.workspaceId, repositoryId: bucket.repositoryId, packageId: bucket.packageId, name: bucket.name, downloads: 0, latest: ['', 0] };
    entry.downloads += bucket.count;
    // the version downloaded last: the newer day, then the later event
    const [day, position] = entry.latest;
    if (bucket.bucket > day || (bucket.bucket === day && bucket.position > position)) Object.assign(entry, { latest: [bucket.bucket, bucket.position], packageId: bucket.packageId });
    packages.set(key, entry);
  }
  const topPackages = [...packages.values()]
    .sort((a, b) => b.downloads - a.downloads || a.name.localeCompare(b.name))
    .slice(0, TOP_PACKAGES)
    .map(({ latest: _latest, ...entry }) => entry);
  return {
    buckets: [...keys],
    counts,
    total,
    topPackages,
    workspaces: [...workspaces].map(([workspaceId, downloads]) => ({ workspaceId, downloads })).sort((a, b) => b.downloads - a.downloads),
  };
}
