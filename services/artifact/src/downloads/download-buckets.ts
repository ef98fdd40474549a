import type { PackageDownloaded } from '@packyard/proto/packyard/artifact/v1/events';
import type { Collection } from '@packyard/platform';
import type { PackageDocument } from '../projections/packages.projection';

export const DOWNLOAD_BUCKETS = 'package_download_buckets';

export type DownloadPeriod = 'day' | 'hour';

/**
 * How many buckets a package keeps per period. A package's buckets are a ring: slot
 * `bucket number % kept`, overwritten when the period comes round again, so storage is
 * bounded per package (90 + 48 documents at most) however long it is downloaded, and a
 * rebuild from the log lands on the same documents.
 */
export const BUCKETS_KEPT: Record<DownloadPeriod, number> = { day: 90, hour: 48 };

const PERIOD_MS: Record<DownloadPeriod, number> = { day: 86_400_000, hour: 3_600_000 };

/** "2026-11-24" (day) or "2026-11-24T13" (hour), UTC */
export const bucketKey = (period: DownloadPeriod, ms: number) => new Date(ms).toISOString().slice(0, period === 'day' ? 10 : 13);

/** the keys of the `count` buckets ending with the one holding `nowMs`, oldest first */
export function bucketKeys(period: DownloadPeriod, nowMs: number, count: number): string[] {
  const step = PERIOD_MS[period];
  const last = Math.floor(nowMs / step);
  return Array.from({ length: count }, (_, index) => bucketKey(period, (last - count + 1 + index) * step));
}

/** Downloads of one package in one day or hour, in total and per token. */
export interface DownloadBucketDocument {
  /** `${packageId}|${period}|${slot}` */
  id: string;
  packageId: string;
  repositoryId: string;
  workspaceId: string;
  ownerId: string;
  name: string;
  version: string;
  period: DownloadPeriod;
  bucket: string;
  count: number;
  bytes: number;
  /** token id → downloads ('' for a download without a token, which the edge does not serve today) */
  byToken: Record<string, number>;
  /** the last event counted here: a redelivered event is not counted twice */
  position: number;
}

/** Adds one PackageDownloaded (a batch of `count` downloads) to the package's day and hour buckets. */
export async function countDownload(buckets: Collection<DownloadBucketDocument>, pkg: PackageDocument, data: PackageDownloaded, position: number): Promise<void> {
  const atMs = Date.parse(data.downloadedAt);
  if (Number.isNaN(atMs)) return;
  const count = Math.max(1, data.count || 1);
  for (const period of ['day', 'hour'] as const) {
    const number = Math.floor(atMs / PERIOD_MS[period]);
    const id = `${pkg.id}|${period}|${number % BUCKETS_KEPT[period]}`;
    const bucket = bucketKey(period, atMs);
    const existing = await buckets.get(id);
    if (existing && existing.position >= position) continue;
    // the slot still holds a period that came round before: it starts again
    const current = existing && existing.bucket === bucket ? existing : undefined;
    if (existing && !current && existing.bucket > bucket) continue; // a late batch older than the ring
    const byToken = { ...current?.byToken };
    byToken[data.tokenId] = (byToken[data.tokenId] ?? 0) + count;
    await buckets.upsert({
      id,
      packageId: pkg.id,
      repositoryId: pkg.repositoryId,
      workspaceId: pkg.workspaceId,
      ownerId: pkg.ownerId,
      name: pkg.name,
      version: pkg.version,
      period,
      bucket,
      count: (current?.count ?? 0) + count,
      bytes: (current?.bytes ?? 0) + Number(data.bytes ?? 0),
      byToken,
      position,
    });
  }
}
