import { isInboxEvent, type Projection } from '@packyard/platform';
import type { PackageDeleted, PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';
import type { RepositoryPurged } from '@packyard/proto/packyard/repository/v1/events';
import { toPublishablePackage, type PublishablePackage } from './publishable-package';

export const PUBLISHABLE_PACKAGES = 'publishable_packages';

/**
 * The package set of every repository, from artifact's events in the inbox: what the
 * publisher loads when it first builds a repository after a start (afterwards it follows
 * the log itself).
 */
export const publishablePackagesProjection: Projection = {
  name: 'publishable-packages',
  collections: [PUBLISHABLE_PACKAGES],
  async handle(event, readModels) {
    const packages = readModels.collection<PublishablePackage>(PUBLISHABLE_PACKAGES);
    // kept while a deleted repository can be restored
    if (event.type === 'RepositoryPurged') {
      await packages.deleteMany({ repositoryId: (event.data as RepositoryPurged).repositoryId });
      return;
    }
    if (!isInboxEvent(event.stream, 'artifact')) return;
    if (event.type === 'PackageUploaded') await packages.upsert(toPublishablePackage(event.data as PackageUploaded));
    else if (event.type === 'PackageDeleted') await packages.delete((event.data as PackageDeleted).packageId);
  },
};
