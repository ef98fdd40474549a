import { isInboxEvent, type Projection, type ReadModelStore } from '@packyard/platform';
import type { PackageDeleted, PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';
import type { RepositoryCreated, RepositoryDeleted } from '@packyard/proto/packyard/repository/v1/events';

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
  async handle(event, readModels) {
    const repositories = readModels.collection<RepositoryDocument>(REPOSITORIES);
    switch (event.type) {
      case 'RepositoryCreated': {
        const data = event.data as RepositoryCreated;
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
        const { repositoryId } = event.data as RepositoryDeleted;
        await repositories.delete(repositoryId);
        await readModels.collection(PACKAGE_SIZES).deleteMany({ repositoryId });
        return;
      }
      case 'PackageUploaded': {
        if (!isInboxEvent(event.stream, 'artifact')) return;
        const data = event.data as PackageUploaded;
        if (!(await repositories.get(data.repositoryId))) return;
        // a source package's size counts its .dsc and every file the .dsc lists
        const sizeBytes = (data.sourceFiles ?? []).reduce((sum, file) => sum + file.sizeBytes, data.sizeBytes);
        await readModels.collection<PackageSizeDocument>(PACKAGE_SIZES).upsert({ id: data.packageId, repositoryId: data.repositoryId, sizeBytes });
        await refreshPackageTotals(readModels, data.repositoryId, data.uploadedAt);
        return;
      }
      case 'PackageDeleted': {
        if (!isInboxEvent(event.stream, 'artifact')) return;
        const data = event.data as PackageDeleted;
        await readModels.collection(PACKAGE_SIZES).delete(data.packageId);
        await refreshPackageTotals(readModels, data.repositoryId, data.deletedAt);
        return;
      }
    }
  },
};
