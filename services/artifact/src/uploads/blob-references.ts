import type { Collection } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import type { PackageDocument } from '../projections/packages.projection';

/**
 * Package blobs are content-addressed, so two packages (the same file uploaded for two
 * distributions) can share one: it is freed once no stored package points at it. Call
 * after the packages projection has caught up with the deletion.
 */
export async function releaseBlobIfUnused(packages: Collection<PackageDocument>, blobs: BlobStore, blobKey: string): Promise<void> {
  if ((await packages.count({ blobKey })) === 0) await blobs.delete(blobKey);
}
