import { describe, expect, it } from 'vitest';
import { inboxStream, type ReadModelStore } from '@packyard/platform';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { DOWNLOAD_BUCKETS, type DownloadBucketDocument } from '../downloads/download-buckets';
import { PACKAGES, packagesProjection, type PackageDocument } from './packages.projection';

const uploaded = (packageId: string, version: string) => ({
  type: 'PackageUploaded',
  stream: `package-r-1_${packageId}`,
  data: { packageId, repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1', kind: 'DEB', distribution: 'debian/bookworm', name: 'hello', version, architecture: 'all', filename: `hello_${version}_all.deb`, sizeBytes: 10, sha256: 'h', blobKey: 'b', uploadedAt: '2026-11-01T00:00:00Z' },
});
let messages = 0;
const downloaded = (packageId: string, tokenId: string, count: number, downloadedAt: string) => ({
  type: 'PackageDownloaded',
  stream: inboxStream('delivery', `m-${++messages}`),
  data: { packageId, repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1', tokenId, count, bytes: count * 10, downloadedAt },
});
const bucketsOf = async (readModels: ReadModelStore, period: 'day' | 'hour') =>
  (await readModels.collection<DownloadBucketDocument>(DOWNLOAD_BUCKETS).find({ period }, { sort: { field: 'bucket', direction: 1 } })).map(({ packageId, bucket, count, byToken }) => ({ packageId, bucket, count, byToken }));

describe('packages projection: downloads', () => {
  it('counts downloads on the package and per day and hour with the tokens, once per event', () =>
    projectionSpec(packagesProjection)
      .given([uploaded('p-1', '1.0'), downloaded('p-1', 't-1', 2, '2026-11-23T10:15:00Z')])
      .when([downloaded('p-1', 't-2', 1, '2026-11-24T10:30:00Z'), downloaded('p-1', 't-1', 3, '2026-11-24T11:05:00Z')])
      .then(async (readModels) => {
        expect(await readModels.collection<PackageDocument>(PACKAGES).get('p-1')).toMatchObject({ downloads: 6, lastDownloadedAt: '2026-11-24T11:05:00Z' });
        expect(await bucketsOf(readModels, 'day')).toEqual([
          { packageId: 'p-1', bucket: '2026-11-23', count: 2, byToken: { 't-1': 2 } },
          { packageId: 'p-1', bucket: '2026-11-24', count: 4, byToken: { 't-1': 3, 't-2': 1 } },
        ]);
        expect(await bucketsOf(readModels, 'hour')).toEqual([
          { packageId: 'p-1', bucket: '2026-11-23T10', count: 2, byToken: { 't-1': 2 } },
          { packageId: 'p-1', bucket: '2026-11-24T10', count: 1, byToken: { 't-2': 1 } },
          { packageId: 'p-1', bucket: '2026-11-24T11', count: 3, byToken: { 't-1': 3 } },
        ]);
      }));

  it('keeps 90 days and 48 hours per package: a day that comes round again takes its slot over, a late older batch is dropped', () =>
    projectionSpec(packagesProjection)
      .given([uploaded('p-1', '1.0'), downloaded('p-1', 't-1', 5, '2026-08-01T10:00:00Z')])
      // 90 days after 2026-08-01 is 2026-10-30: the same slot
      .when([downloaded('p-1', 't-1', 1, '2026-10-30T10:00:00Z'), downloaded('p-1', 't-1', 7, '2026-08-01T12:00:00Z')])
      .then(async (readModels) => {
        expect(await bucketsOf(readModels, 'day')).toEqual([{ packageId: 'p-1', bucket: '2026-10-30', count: 1, byToken: { 't-1': 1 } }]);
        // 2160 hours apart, a multiple of 48: one slot; the late batch's hour was free (the query leaves it out)
        expect((await bucketsOf(readModels, 'hour')).map((bucket) => bucket.bucket)).toEqual(['2026-08-01T12', '2026-10-30T10']);
      }));

  it('forgets a deleted package with its statistics, and ignores downloads of packages it does not hold', () =>
    projectionSpec(packagesProjection)
      .given([uploaded('p-1', '1.0'), uploaded('p-2', '2.0'), downloaded('p-1', 't-1', 1, '2026-11-24T10:00:00Z'), downloaded('p-2', 't-1', 1, '2026-11-24T10:00:00Z')])
      .when([{ type: 'PackageDeleted', stream: 'package-r-1_p-1', data: { packageId: 'p-1', repositoryId: 'r-1' } }, downloaded('p-9', 't-1', 1, '2026-11-24T10:00:00Z')])
      .then(async (readModels) => {
        expect((await bucketsOf(readModels, 'day')).map((bucket) => bucket.packageId)).toEqual(['p-2']);
        expect(await readModels.collection(DOWNLOAD_BUCKETS).count({ packageId: 'p-9' })).toBe(0);
      }));
});
