import type { Projection, ReadModels } from '@packyard/platform';
import { followedEvent } from '../publishing/followed-events';
import { wasPurgedAtOnce } from '../repositories/repository.events';

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
  /** the log position of the last package event counted in packageCount and sizeBytes */
  totalsAt?: number;
}

/** a deleted repository in its grace period, kept whole for its restoration */
export interface DeletedRepositoryDocument extends RepositoryDocument {
  deletedAt: string;
  /** '' when it was deleted with its workspace: it is purged with the workspace */
  purgeAt: string;
  withWorkspace: boolean;
}

/** one document per stored package: what its deletion takes off the totals */
interface PackageSizeDocument {
  id: string;
  repositoryId: string;
  sizeBytes: number;
}

export const REPOSITORIES = 'repositories';
export const DELETED_REPOSITORIES = 'deleted_repositories';
const PACKAGE_SIZES = 'repository_package_sizes';

/**
 * Counts a package's upload (its size) or deletion (undefined) in its repository's totals,
 * with two reads whatever the repository holds. The repository is written first, with the
 * event's position, and the package's size after it: an event handled again (redelivered,
 * or after a crash between the two writes) finds its position counted and only writes the size.
 */
async function countPackage(readModels: ReadModels, position: number, repositoryId: string, packageId: string, sizeBytes: number | undefined, at: string) {
  const repositories = readModels.collection<RepositoryDocument>(REPOSITORIES);
  const sizes = readModels.collection<PackageSizeDocument>(PACKAGE_SIZES);
  const repository = await repositories.get(repositoryId);
  const counted = await sizes.get(packageId);
  if (repository && (repository.totalsAt ?? 0) < position) {
    await repositories.upsert({
      ...repository,
      packageCount: repository.packageCount + (sizeBytes === undefined ? 0 : 1) - (counted ? 1 : 0),
      sizeBytes: repository.sizeBytes + (sizeBytes ?? 0) - (counted?.sizeBytes ?? 0),
      totalsAt: position,
      updatedAt: at > repository.updatedAt ? at : repository.updatedAt,
    });
  }
  if (sizeBytes === undefined) await sizes.delete(packageId);
  else await sizes.upsert({ id: packageId, repositoryId, sizeBytes });
}

/**
 * The repositories read model: what the API lists, plus package count and size from
 * artifact's events; the deleted ones apart until they are purged.
 */
export const repositoriesProjection: Projection = {
  name: 'repositories',
  collections: [REPOSITORIES, DELETED_REPOSITORIES, PACKAGE_SIZES],
  indexes: { [PACKAGE_SIZES]: ['repositoryId'] },
  async handle(recorded, readModels) {
    const event = followedEvent(recorded);
    const repositories = readModels.collection<RepositoryDocument>(REPOSITORIES);
    const deletedRepositories = readModels.collection<DeletedRepositoryDocument>(DELETED_REPOSITORIES);
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
        const { data } = event;
        const repository = await repositories.get(data.repositoryId);
        await repositories.delete(data.repositoryId);
        if (wasPurgedAtOnce(data)) await readModels.collection(PACKAGE_SIZES).deleteMany({ repositoryId: data.repositoryId });
        else if (repository) await deletedRepositories.upsert({ ...repository, deletedAt: data.deletedAt, purgeAt: data.purgeAt, withWorkspace: data.withWorkspace });
        return;
      }
      case 'RepositoryRestored': {
        const { repositoryId } = event.data;
        const deleted = await deletedRepositories.get(repositoryId);
        if (!deleted) return;
        const { deletedAt: _deletedAt, purgeAt: _purgeAt, withWorkspace: _withWorkspace, ...repository } = deleted;
        await repositories.upsert(repository);
        await deletedRepositories.delete(repositoryId);
        return;
      }
      case 'RepositoryPurged': {
        const { repositoryId } = event.data;
        await deletedRepositories.delete(repositoryId);
        await readModels.collection(PACKAGE_SIZES).deleteMany({ repositoryId });
        return;
      }
      case 'PackageUploaded': {
        const { data } = event;
        if (!(await repositories.get(data.repositoryId))) return;
        // a source package's size counts its .dsc and every file the .dsc lists
        const sizeBytes = (data.sourceFiles ?? []).reduce((sum, file) => sum + file.sizeBytes, data.sizeBytes);
        await countPackage(readModels, recorded.position, data.repositoryId, data.packageId, sizeBytes, data.uploadedAt);
        return;
      }
      case 'PackageDeleted': {
        const { data } = event;
        await countPackage(readModels, recorded.position, data.repositoryId, data.packageId, undefined, data.deletedAt);
        return;
      }
    }
  },
};
