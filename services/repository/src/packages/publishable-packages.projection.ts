import type { Projection } from '@packyard/platform';
import { followedEvent } from '../publishing/followed-events';
import { toPublishablePackage, type PublishablePackage } from './publishable-package';

export const PUBLISHABLE_PACKAGES = 'publishable_packages';

/** what one projected event did to a repository's package set */
export type PackageSetChange =
  | { kind: 'stored'; pkg: PublishablePackage }
  | { kind: 'deleted'; repositoryId: string; packageId: string }
  | { kind: 'repository-deleted'; repositoryId: string };

/**
 * The package set of every repository, from artifact's events in the inbox: what the
 * publisher reads a repository's packages from. `onChange` lets the publisher's in-memory
 * sets follow; a rebuild (`packyard rebuild-projections --target=repository`) runs without it.
 */
export function publishablePackagesProjection(onChange: (change: PackageSetChange) => void = () => {}): Projection {
  return {
    name: 'publishable-packages',
    collections: [PUBLISHABLE_PACKAGES],
    async handle(recorded, readModels) {
      const event = followedEvent(recorded);
      const packages = readModels.collection<PublishablePackage>(PUBLISHABLE_PACKAGES);
      switch (event?.type) {
        case 'RepositoryDeleted':
          await packages.deleteMany({ repositoryId: event.data.repositoryId });
          return onChange({ kind: 'repository-deleted', repositoryId: event.data.repositoryId });
        case 'PackageUploaded': {
          const pkg = toPublishablePackage(event.data);
          await packages.upsert(pkg);
          return onChange({ kind: 'stored', pkg });
        }
        case 'PackageDeleted':
          await packages.delete(event.data.packageId);
          return onChange({ kind: 'deleted', repositoryId: event.data.repositoryId, packageId: event.data.packageId });
      }
    },
  };
}
