import { callerMaySee, notFound, type Caller, type Collection } from '@packyard/platform';
import type { RepositoryDocument } from '../projections/repositories.projection';

/** the caller's repository (in `workspaceId` when given), or 404 whether it is missing or someone else's */
export async function visibleRepository(repositories: Collection<RepositoryDocument>, caller: Caller, id: string, workspaceId: string): Promise<RepositoryDocument> {
  const doc = id ? await repositories.get(id) : undefined;
  if (!doc || (workspaceId && doc.workspaceId !== workspaceId) || !callerMaySee(caller, { ownerId: doc.ownerId, repositoryId: doc.id })) {
    throw notFound('PACKYARD_REPOSITORY_NOT_FOUND', 'Repository not found');
  }
  return doc;
}
