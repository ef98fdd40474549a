import { randomUUID } from 'node:crypto';
import {
  callerMaySee,
  forbidden,
  handleCommand,
  notFound,
  type Caller,
  type CallerContext,
  type EventSourcing,
  type PackyardClient,
} from '@packyard/platform';
import type { Repository, RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import type { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import type { ServiceImplementation } from 'nice-grpc';
import { repositoriesDecider } from '../repositories/repositories.decider';
import { isRepositoryIntegrationEvent, repositoriesStream } from '../repositories/repository.events';
import { DELETED_REPOSITORIES, REPOSITORIES, type DeletedRepositoryDocument, type RepositoryDocument } from '../projections/repositories.projection';
import { visibleRepository } from './visible-repository';

const toRepository = (doc: RepositoryDocument): Repository => ({ ...doc });
const toDeletedRepository = ({ deletedAt, purgeAt, withWorkspace: _withWorkspace, ...doc }: DeletedRepositoryDocument) => ({ repository: toRepository(doc), deletedAt, purgeAt });

export function repositoryHandlers(
  es: EventSourcing,
  workspaces: PackyardClient<typeof WorkspaceServiceDefinition>,
  settings: { deletionGraceSeconds: number },
): ServiceImplementation<typeof RepositoryServiceDefinition, CallerContext> {
  const repositories = es.readModels.collection<RepositoryDocument>(REPOSITORIES);
  const deletedRepositories = es.readModels.collection<DeletedRepositoryDocument>(DELETED_REPOSITORIES);

  const visible = (caller: Caller, id: string, workspaceId: string) => visibleRepository(repositories, caller, id, workspaceId);

  return {
    async createRepository(request, { caller }) {
      // the workspace module answers 404 for a workspace that is not the caller's
      const workspace = await workspaces.getWorkspace({ id: request.workspaceId }, { caller });
      if (caller.repositoryId) throw forbidden('This token is limited to one repository and cannot create others');
      const repositoryId = randomUUID();
      const result = await handleCommand(
        es.events,
        repositoriesStream(workspace.id),
        repositoriesDecider,
        {
          type: 'CreateRepository',
          repositoryId,
          workspaceId: workspace.id,
          workspaceSlug: workspace.slug,
          ownerId: workspace.ownerId,
          name: request.name,
          kind: request.kind,
          codename: request.codename,
          component: request.component,
          now: new Date().toISOString(),
        },
        { isIntegration: isRepositoryIntegrationEvent, metadata: { caller } },
      );
      await es.caughtUp(result.lastPosition);
      return toRepository(await visible(caller, repositoryId, workspace.id));
    },

    async listRepositories(request, { caller }) {
      await workspaces.getWorkspace({ id: request.workspaceId }, { caller });
      const docs = await repositories.find({ workspaceId: request.workspaceId }, { sort: { field: 'createdAt', direction: 1 } });
      return { repositories: docs.filter((doc) => callerMaySee(caller, { ownerId: doc.ownerId, repositoryId: doc.id })).map(toRepository) };
    },

    async listAllRepositories(_request, { caller }) {
      if (!caller.userId) return { repositories: [] };
      const docs = await repositories.find({ ownerId: caller.userId }, { sort: { field: 'createdAt', direction: 1 } });
      return { repositories: docs.filter((doc) => callerMaySee(caller, { ownerId: doc.ownerId, repositoryId: doc.id })).map(toRepository) };
    },

    async getRepository(request, { caller }) {
      return toRepository(await visible(caller, request.id, request.workspaceId));
    },

    async deleteRepository(request, { caller }) {
      const doc = await visible(caller, request.id, request.workspaceId);
      const now = new Date();
      const purgeAt = new Date(now.getTime() + settings.deletionGraceSeconds * 1000).toISOString();
      const result = await handleCommand(
        es.events,
        repositoriesStream(doc.workspaceId),
        repositoriesDecider,
        { type: 'DeleteRepository', workspaceId: doc.workspaceId, repositoryId: doc.id, now: now.toISOString(), purgeAt },
        { isIntegration: isRepositoryIntegrationEvent, metadata: { caller } },
      );
      await es.caughtUp(result.lastPosition);
      return {};
    },

    async listDeletedRepositories(request, { caller }) {
      // 404 for a workspace that is not the caller's, or is deleted itself
      await workspaces.getWorkspace({ id: request.workspaceId }, { caller });
      const docs = await deletedRepositories.find({ workspaceId: request.workspaceId, withWorkspace: false }, { sort: { field: 'purgeAt', direction: 1 } });
      return { repositories: docs.filter((doc) => callerMaySee(caller, { ownerId: doc.ownerId, repositoryId: doc.id })).map(toDeletedRepository) };
    },

    async restoreRepository(request, { caller }) {
      const doc = request.id ? await deletedRepositories.get(request.id) : undefined;
      if (!doc || doc.workspaceId !== request.workspaceId || !callerMaySee(caller, { ownerId: doc.ownerId, repositoryId: doc.id })) {
        throw notFound('PACKYARD_REPOSITORY_NOT_FOUND', 'Repository not found');
      }
      const result = await handleCommand(
        es.events,
        repositoriesStream(doc.workspaceId),
        repositoriesDecider,
        { type: 'RestoreRepository', workspaceId: doc.workspaceId, repositoryId: doc.id, now: new Date().toISOString() },
        { isIntegration: isRepositoryIntegrationEvent, metadata: { caller } },
      );
      await es.caughtUp(result.lastPosition);
      return toRepository(await visible(caller, doc.id, doc.workspaceId));
    },

    async resolveRepository(request) {
      const [doc] = await repositories.find({ kind: request.kind.toUpperCase(), workspaceSlug: request.workspaceSlug, name: request.repositoryName });
      if (!doc) throw notFound('PACKYARD_REPOSITORY_NOT_FOUND', 'Repository not found');
      return { repositoryId: doc.id, workspaceId: doc.workspaceId, ownerId: doc.ownerId, kind: doc.kind, name: doc.name };
    },
  };
}
