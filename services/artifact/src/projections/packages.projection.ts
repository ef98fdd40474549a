import { decodeEvent, isInboxEvent, type Projection } from '@packyard/platform';
import type { Package } from '@packyard/proto/packyard/artifact/v1/artifact';
import { formatDistribution } from '@packyard/formats';
import { PackageDeleted, PackageUploaded } from '@packyard/formats/recorded-distributions';
import { PackageDownloaded } from '@packyard/proto/packyard/artifact/v1/events';
import { countDownload, DOWNLOAD_BUCKETS, type DownloadBucketDocument } from '../downloads/download-buckets';

export interface PackageDocument {
  id: string;
  stream: string;
  repositoryId: string;
  workspaceId: string;
  ownerId: string;
  kind: string;
  distribution: string;
  name: string;
  version: string;
  architecture: string;
  filename: string;
  sizeBytes: number;
  sha256: string;
  blobKey: string;
  publishedAt: string;
  downloads: number;
  /** the newest download delivery reported (retention spares recently downloaded versions) */
  lastDownloadedAt?: string;
  /** the last PackageDownloaded counted (a redelivered one is not counted twice) */
  downloadsPosition?: number;
  /** a Debian source package's files besides its .dsc (blobKey) */
  sourceBlobKeys?: string[];
}

/** one file a source package's .dsc lists: what keeps its blob alive besides the packages' own blobKey */
export interface SourceFileDocument {
  /** `<packageId>|<blobKey>` */
  id: string;
  packageId: string;
  blobKey: string;
  repositoryId: string;
  /** the upload distribution: with the file name, the pool path */
  distribution: string;
  filename: string;
  sha256: string;
}

export const PACKAGES = 'packages';
export const SOURCE_FILES = 'package_source_files';

export const toPackage = (doc: PackageDocument): Package => ({
  id: doc.id,
  repositoryId: doc.repositoryId,
  name: doc.name,
  version: doc.version,
  architecture: doc.architecture,
  filename: doc.filename,
  sizeBytes: doc.sizeBytes,
  downloads: doc.downloads,
  publishedAt: doc.publishedAt,
  distribution: doc.distribution,
  sha256: doc.sha256,
});

const FOLLOWED = { PackageUploaded, PackageDeleted, PackageDownloaded };

/**
 * The stored packages (what the API lists and what keeps blobs alive), with their
 * downloads counted from delivery's PackageDownloaded events (recorded in the inbox):
 * in total on the package, and per day and hour (with the tokens) in its download buckets.
 */
export const packagesProjection: Projection = {
  name: 'packages',
  collections: [PACKAGES, SOURCE_FILES, DOWNLOAD_BUCKETS],
  // a repository's packages are listed, counted, retained and purged by it
  indexes: { [PACKAGES]: ['repositoryId'] },
  async handle(recorded, readModels) {
    const event = decodeEvent(recorded, FOLLOWED);
    if (!event) return;
    const packages = readModels.collection<PackageDocument>(PACKAGES);
    const buckets = readModels.collection<DownloadBucketDocument>(DOWNLOAD_BUCKETS);
    switch (event.type) {
      case 'PackageUploaded': {
        const data = event.data;
        // documents keep `distro/version`, the form they were stored in before it was a message
        const distribution = formatDistribution(data.uploadDistribution);
        await packages.upsert({
          id: data.packageId,
          stream: recorded.stream,
          repositoryId: data.repositoryId,
          workspaceId: data.workspaceId,
          ownerId: data.ownerId,
          kind: data.kind,
          distribution,
          name: data.name,
          version: data.version,
          architecture: data.architecture,
          filename: data.filename,
          sizeBytes: data.sizeBytes,
          sha256: data.sha256,
          blobKey: data.blobKey,
          publishedAt: data.uploadedAt,
          downloads: 0,
          ...(data.sourceFiles?.length ? { sourceBlobKeys: data.sourceFiles.map((file) => file.blobKey) } : {}),
        });
        const sourceFiles = readModels.collection<SourceFileDocument>(SOURCE_FILES);
        // events recorded before source packages existed have no sourceFiles
        for (const { blobKey, filename, sha256 } of data.sourceFiles ?? []) {
          await sourceFiles.upsert({ id: `${data.packageId}|${blobKey}`, packageId: data.packageId, blobKey, repositoryId: data.repositoryId, distribution, filename, sha256 });
        }
        return;
      }
      case 'PackageDeleted': {
        // a package's statistics and its source files' references go with it: they stay bounded by the packages stored
        const { packageId } = event.data;
        await packages.delete(packageId);
        await buckets.deleteMany({ packageId });
        await readModels.collection<SourceFileDocument>(SOURCE_FILES).deleteMany({ packageId });
        return;
      }
      case 'PackageDownloaded': {
        if (!isInboxEvent(recorded.stream, 'delivery') && !isInboxEvent(recorded.stream, 'artifact')) return;
        const data = event.data;
        const doc = await packages.get(data.packageId);
        if (!doc || (doc.downloadsPosition ?? 0) >= recorded.position) return;
        const lastDownloadedAt = data.downloadedAt && (!doc.lastDownloadedAt || data.downloadedAt > doc.lastDownloadedAt) ? data.downloadedAt : doc.lastDownloadedAt;
        await countDownload(buckets, doc, data, recorded.position);
        await packages.upsert({ ...doc, downloads: doc.downloads + Math.max(1, data.count || 1), downloadsPosition: recorded.position, ...(lastDownloadedAt ? { lastDownloadedAt } : {}) });
        return;
      }
    }
  },
};
