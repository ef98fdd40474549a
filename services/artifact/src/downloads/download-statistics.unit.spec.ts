import { describe, expect, it } from 'vitest';
import { bucketKeys, type DownloadBucketDocument } from './download-buckets';
import { downloadSeries, downloadSummary } from './download-statistics';

const bucket = (packageId: string, version: string, day: string, byToken: Record<string, number>, extra: Partial<DownloadBucketDocument> = {}): DownloadBucketDocument => ({
  id: `${packageId}|day|${day}`,
  packageId,
  repositoryId: 'r-1',
  workspaceId: 'ws-1',
  ownerId: 'u-1',
  name: 'hello',
  version,
  period: 'day',
  bucket: day,
  count: Object.values(byToken).reduce((a, b) => a + b, 0),
  bytes: 0,
  byToken,
  position: 1,
  ...extra,
});

const now = Date.parse('2026-11-24T12:00:00Z');

describe('download statistics', () => {
  it('names the buckets of a window, oldest first, today last', () => {
    expect(bucketKeys('day', now, 3)).toEqual(['2026-11-22', '2026-11-23', '2026-11-24']);
    expect(bucketKeys('hour', now, 2)).toEqual(['2026-11-24T11', '2026-11-24T12']);
  });

  const buckets = [
    bucket('p-1', '1.0', '2026-11-22', { 't-1': 2 }),
    bucket('p-2', '2.0', '2026-11-24', { 't-1': 1, 't-2': 4 }),
    // older than the window: a ring slot not yet taken over
    bucket('p-1', '1.0', '2026-08-25', { 't-1': 100 }),
  ];
  const keys = bucketKeys('day', now, 3);

  it('adds up one line, or a line per version or per token, busiest first, leaving out what is older than the window', () => {
    expect(downloadSeries(buckets, keys, 'total')).toEqual({ buckets: keys, total: 7, lines: [{ key: 'total', total: 7, counts: [2, 0, 5] }] });
    expect(downloadSeries(buckets, keys, 'version').lines).toEqual([
      { key: '2.0', total: 5, counts: [0, 0, 5] },
      { key: '1.0', total: 2, counts: [2, 0, 0] },
    ]);
    expect(downloadSeries(buckets, keys, 'token').lines).toEqual([
      { key: 't-2', total: 4, counts: [0, 0, 4] },
      { key: 't-1', total: 3, counts: [2, 0, 1] },
    ]);
    expect(downloadSeries([], keys, 'total').lines).toEqual([{ key: 'total', total: 0, counts: [0, 0, 0] }]);
  });

  it('sums an owner’s days, workspaces and top package names, opening the newest version downloaded', () => {
    const other = bucket('p-3', '0.1', '2026-11-23', { 't-9': 1 }, { name: 'zzz', workspaceId: 'ws-2', repositoryId: 'r-2' });
    expect(downloadSummary([...buckets, other], keys)).toEqual({
      buckets: keys,
      counts: [2, 1, 5],
      total: 8,
      topPackages: [
        { workspaceId: 'ws-1', repositoryId: 'r-1', packageId: 'p-2', name: 'hello', downloads: 7 },
        { workspaceId: 'ws-2', repositoryId: 'r-2', packageId: 'p-3', name: 'zzz', downloads: 1 },
      ],
      workspaces: [
        { workspaceId: 'ws-1', downloads: 7 },
        { workspaceId: 'ws-2', downloads: 1 },
      ],
    });
  });
});
