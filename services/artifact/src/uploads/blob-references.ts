import type { ReadModelStore } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import { PACKAGES, SOURCE_FILES, type PackageDocument, type SourceFileDocument } from '../projections/packages.projection';

/** every blob a package names: its file and, for a Debian source package, the files its .dsc lists */
export const blobKeysOf = (doc: PackageDocument): string[] => [doc.blobKey, ...(doc.sourceBlobKeys ?? [])];

/**
 * Package blobs are content-addressed, so several packages can share one (the same file
 * uploaded for two distributions, a copy in another repository, an orig tarball of two
 * revisions of a source package): each is freed once no stored package names it. Call
 * after the packages projection has caught up with the deletion.
 */
export async function releaseBlobsIfUnused(readModels: ReadModelStore, blobs: BlobStore, blobKeys: Iterable<string>): Promise<void> {
  const packages = readModels.collection<PackageDocument>(PACKAGES);
  const sourceFiles = readModels.collection<SourceFileDocument>(SOURCE_FILES);
  for (const blobKey of new Set(blobKeys)) {
    if ((await packages.count({ blobKey })) === 0 && (await sourceFiles.count({ blobKey })) === 0) await blobs.delete(blobKey);
  }
}
