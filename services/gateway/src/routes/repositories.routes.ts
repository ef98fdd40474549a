import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { RepositoryServiceDefinition, type DeletedRepository, type Repository } from '@packyard/proto/packyard/repository/v1/repository';
import type { GatewayOptions } from '../app';

export const RepositorySchema = Type.Object({
  id: Type.String(),
  workspaceId: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('DEB'), Type.Literal('RPM')]),
  codename: Type.String({ description: 'DEB only; empty for RPM' }),
  component: Type.String({ description: 'DEB only; empty for RPM' }),
  packageCount: Type.Integer(),
  sizeBytes: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const DeletedRepositorySchema = Type.Object({
  ...RepositorySchema.properties,
  deletedAt: Type.String({ format: 'date-time' }),
  purgeAt: Type.String({ format: 'date-time', description: 'when it is purged for good with its packages, tokens and keys, unless restored before' }),
});

export const toJson = ({ ownerId: _ownerId, workspaceSlug: _slug, ...repository }: Repository) => ({ ...repository, kind: repository.kind as 'DEB' | 'RPM' });
const deletedToJson = ({ repository, deletedAt, purgeAt }: DeletedRepository) => ({ ...toJson(repository!), deletedAt, purgeAt });
const InWorkspace = Type.Object({ workspaceId: Type.String() });
const RepositoryPath = Type.Object({ workspaceId: Type.String(), id: Type.String() });

/** `/v1/workspaces/{workspaceId}/repos` and `/v1/repos` (spec §7). */
export const repositoriesRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const repositories = clients.client(RepositoryServiceDefinition, 'repository');
  const tags = ['repositories'];
  const security = [{ bearer: [] }];

  app.get('/repos', { schema: { tags, security, description: "All of the caller's repositories", response: { 200: Type.Array(RepositorySchema) } } }, async (request) =>
    (await repositories.listAllRepositories({}, { caller: request.caller })).repositories.map(toJson),
  );

  app.get('/workspaces/:workspaceId/repos', { schema: { tags, security, params: InWorkspace, response: { 200: Type.Array(RepositorySchema) } } }, async (request) =>
    (await repositories.listRepositories({ workspaceId: request.params.workspaceId }, { caller: request.caller })).repositories.map(toJson),
  );

  app.post(
    '/workspaces/:workspaceId/repos',
    {
      schema: {
        tags,
        security,
        description: 'Creates a repository; kind defaults to DEB, codename to "stable" and component to "main" (DEB only)',
        params: InWorkspace,
        body: Type.Object({
          name: Type.Optional(Type.String()),
          kind: Type.Optional(Type.String()),
          codename: Type.Optional(Type.String()),
          component: Type.Optional(Type.String()),
        }),
        response: { 201: RepositorySchema },
      },
    },
    async (request, reply) => {
      const { name = '', kind = '', codename = '', component = '' } = request.body;
      const created = await repositories.createRepository({ workspaceId: request.params.workspaceId, name, kind, codename, component }, { caller: request.caller });
      return reply.code(201).send(toJson(created));
    },
  );

  app.get(
    '/workspaces/:workspaceId/repos/deleted',
    {
      schema: {
        tags,
        security,
        description: 'Repositories deleted from the workspace that can still be restored (DELETION_GRACE_S), soonest purged first',
        params: InWorkspace,
        response: { 200: Type.Array(DeletedRepositorySchema) },
      },
    },
    async (request) => (await repositories.listDeletedRepositories({ workspaceId: request.params.workspaceId }, { caller: request.caller })).repositories.map(deletedToJson),
  );

  app.post(
    '/workspaces/:workspaceId/repos/:id/restore',
    {
      schema: {
        tags,
        security,
        description:
          'Restores a deleted repository during its grace period with its packages, tokens, keys and settings; apt and dnf are served again as before. 409 when a repository created since holds its name.',
        params: RepositoryPath,
        response: { 200: RepositorySchema },
      },
    },
    async (request) => toJson(await repositories.restoreRepository({ workspaceId: request.params.workspaceId, id: request.params.id }, { caller: request.caller })),
  );

  app.get('/workspaces/:workspaceId/repos/:id', { schema: { tags, security, params: RepositoryPath, response: { 200: RepositorySchema } } }, async (request) =>
    toJson(await repositories.getRepository({ workspaceId: request.params.workspaceId, id: request.params.id }, { caller: request.caller })),
  );

  app.delete(
    '/workspaces/:workspaceId/repos/:id',
    { schema: { tags, security, description: 'Deletes the repository with its packages and tokens: hidden and no longer served at once, restorable (POST …/restore) until the grace period (DELETION_GRACE_S) ends, then purged. Its name is free meanwhile.', params: RepositoryPath } },
    async (request, reply) => {
      await repositories.deleteRepository({ workspaceId: request.params.workspaceId, id: request.params.id }, { caller: request.caller });
      return reply.code(204).send();
    },
  );
};
