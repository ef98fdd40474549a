import { isServiceCaller, notFound, type Caller, type ReadModelStore } from '@packyard/platform';
import { WORKSPACE_REPOSITORIES, WORKSPACES, type WorkspaceDocument, type WorkspaceRepositoryDocument } from '../projections/workspaces.projection';

/** Tenancy of workspaces: the owner sees them, a token limited to one repository only the workspace holding it, anyone else nothing (404). */
export function workspaceVisibility(readModels: ReadModelStore) {
  const workspaces = readModels.collection<WorkspaceDocument>(WORKSPACES);
  const repositories = readModels.collection<WorkspaceRepositoryDocument>(WORKSPACE_REPOSITORIES);

  const maySee = async (caller: Caller, workspace: WorkspaceDocument) => {
    if (isServiceCaller(caller)) return true;
    if (!caller.userId || workspace.ownerId !== caller.userId) return false;
    if (!caller.repositoryId) return true;
    return (await repositories.get(caller.repositoryId))?.workspaceId === workspace.id;
  };

  const visibleWorkspace = async (caller: Caller, id: string) => {
    const workspace = id ? await workspaces.get(id) : undefined;
    if (!workspace || !(await maySee(caller, workspace))) throw notFound('PACKYARD_WORKSPACE_NOT_FOUND', 'Workspace not found');
    return workspace;
  };

  return { maySee, visibleWorkspace };
}
