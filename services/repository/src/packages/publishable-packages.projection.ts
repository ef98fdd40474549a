import type { Projection } from '@packyard/platform';
import { followedEvent, purgedRepositoryId } from '../publishing/followed-events';
import { toPublishablePackage, type PublishablePackage } from './publishable-package';

export const PUBLISHABLE_PACKAGES = 'publishable_packages';

/** what one projected event did to a repository's package set */
export type PackageSetChange =
  | { kind: 'stored'; pkg: PublishablePackage }
  | { kind: 'deleted'; repositoryId: string; packageId: string }
  | { kind: 'repository-purged'; repositoryId: string };

/**
 * The package set of every repository, from artifact's events in the inbox: what the
 * publisher reads a repository's packages from. `onChange` lets the publisher's in-memory
 * sets follow the changes the read model took; a rebuild (`packyard rebuild-projections
 * --target=repository`) runs without it.
 */
export function publishablePackagesProjection(onChange: (change: PackageSetChange) => void = () => {}): Projection {
  return {
    name: 'publishable-packages',
    collections: [PUBLISHABLE_PACKAGES],
    // a build reads its repository's package set by it
    indexes: { [PUBLISHABLE_PACKAGES]: ['repositoryId'] },
    async handle(recorded, readModels) {
      const event = followedEvent(recorded);
      const packages = readModels.collection<PublishablePackage>(PUBLISHABLE_PACKAGES);
      // a deleted repository's packages are kept while it can be restored
      const purged = purgedRepositoryId(event);
      if (purged) {
        await packages.deleteMany({ repositoryId: purged });
        return onChange({ kind: 'repository-purged', repositoryId: purged });
      }
      switch (event?.type) {
        // a write skipped for a later one (another replica's) changed nothing the sets may follow
        case 'PackageUploaded': {
          const pkg = toPublishablePackage(event.data);
          if (await packages.upsert(pkg)) onChange({ kind: 'stored', pkg });
          return;
        }
        case 'PackageDeleted':
          if (await packages.delete(event.data.packageId)) onChange({ kind: 'deleted', repositoryId: event.data.repositoryId, packageId: event.data.packageId });
          return;
      }
    },
  };
}
