import type { Projection, ReadModelStore } from '@packyard/platform';
import { followedEvent } from '../publishing/followed-events';

export interface RepositoryDocument {
  id: string;
  workspaceId: string;
  workspaceSlug: string;
  ownerId: string;
  name: string;
  kind: string;
  codename: string;
  component: string;
  packageCount: number;
  sizeBytes: number;
  createdAt: string;
  updatedAt: string;
}

/** one document per stored package, so the counts are recomputed, never incremented (idempotent) */
interface PackageSizeDocument {
  id: string;
  repositoryId: string;
  sizeBytes: number;
}

export const REPOSITORIES = 'repositories';
const PACKAGE_SIZES = 'repository_package_sizes';

async function refreshPackageTotals(readModels: ReadModelStore, repositoryId: string, at: string) {
  const repositories = readModels.collection<RepositoryDocument>(REPOSITORIES);
  const repository = await repositories.get(repositoryId);
  if (!repository) return;
  const packages = await readModels.collection<PackageSizeDocument>(PACKAGE_SIZES).find({ repositoryId });
  const sizeBytes = packages.reduce((sum, item) => sum + item.sizeBytes, 0);
  await repositories.upsert({ ...repository, packageCount: packages.length, sizeBytes, updatedAt: at > repository.updatedAt ? at : repository.updatedAt });
}

/** The repositories read model: what the API lists, plus package count and size from artifact's events. */
export const repositoriesProjection: Projection = {
  name: 'repositories',
  collections: [REPOSITORIES, PACKAGE_SIZES],
  async handle(recorded, readModels) {
    const event = followedEvent(recorded);
    const repositories = readModels.collection<RepositoryDocument>(REPOSITORIES);
    switch (event?.type) {
      case 'RepositoryCreated': {
        const { data } = event;
        await repositories.upsert({
          id: data.repositoryId,
          workspaceId: data.workspaceId,
          workspaceSlug: data.workspaceSlug,
          ownerId: data.ownerId,
          name: data.name,
          kind: data.kind,
          codename: data.codename,
          component: data.component,
          packageCount: 0,
          sizeBytes: 0,
          createdAt: data.createdAt,
          updatedAt: data.createdAt,
        });
        return;
      }
      case 'RepositoryDeleted': {
        const { repositoryId } = event.data;
        await repositories.delete(repositoryId);
        await readModels.collection(PACKAGE_SIZES).deleteMany({ repositoryId });
        return;
      }
      case 'PackageUploaded': {
        const { data } = event;
        if (!(await repositories.get(data.repositoryId))) return;
        await readModels.collection<PackageSizeDocument>(PACKAGE_SIZES).upsert({ id: data.packageId, repositoryId: data.repositoryId, sizeBytes: data.sizeBytes });
        await refreshPackageTotals(readModels, data.repositoryId, data.uploadedAt);
        return;
      }
      case 'PackageDeleted': {
        const { data } = event;
        await readModels.collection(PACKAGE_SIZES).delete(data.packageId);
        await refreshPackageTotals(readModels, data.repositoryId, data.deletedAt);
        return;
      }
    }
  },
};
