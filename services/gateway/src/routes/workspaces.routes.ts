import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { WorkspaceServiceDefinition, type DeletedWorkspace, type Workspace } from '@packyard/proto/packyard/workspace/v1/workspace';
import type { GatewayOptions } from '../app';

export const WorkspaceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  description: Type.String(),
  repositoryCount: Type.Integer(),
  storageBytesUsed: Type.Integer(),
  bandwidthBytesMonth: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const DeletedWorkspaceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  description: Type.String(),
  repositoryCount: Type.Integer({ description: 'the repositories deleted with it, restored with it' }),
  createdAt: Type.String({ format: 'date-time' }),
  deletedAt: Type.String({ format: 'date-time' }),
  purgeAt: Type.String({ format: 'date-time', description: 'when it is purged for good with everything in it, unless restored before' }),
});

export const toJson = ({ ownerId: _ownerId, ...workspace }: Workspace) => workspace;
const deletedToJson = (workspace: DeletedWorkspace) => workspace;
const WorkspaceId = Type.Object({ id: Type.String() });

/** `/v1/workspaces`: the caller's workspaces (spec §7). */
export const workspacesRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const workspaces = clients.client(WorkspaceServiceDefinition, 'workspace');
  const tags = ['workspaces'];
  const security = [{ bearer: [] }];

  app.get('/workspaces', { schema: { tags, security, response: { 200: Type.Object({ workspaces: Type.Array(WorkspaceSchema) }) } } }, async (request) => {
    const { workspaces: list } = await workspaces.listWorkspaces({}, { caller: request.caller });
    return { workspaces: list.map(toJson) };
  });

  app.post(
    '/workspaces',
    {
      schema: {
        tags,
        security,
        description: 'Creates a workspace; the slug is derived from the name when empty and must be unique',
        body: Type.Object({ name: Type.Optional(Type.String()), slug: Type.Optional(Type.String()), description: Type.Optional(Type.String()) }),
        response: { 201: WorkspaceSchema },
      },
    },
    async (request, reply) => {
      const { name = '', slug = '', description = '' } = request.body;
      const created = await workspaces.createWorkspace({ name, slug, description }, { caller: request.caller });
      return reply.code(201).send(toJson(created));
    },
  );

  app.get(
    '/workspaces/deleted',
    {
      schema: {
        tags,
        security,
        description: "The caller's deleted workspaces that can still be restored (DELETION_GRACE_S), soonest purged first",
        response: { 200: Type.Object({ workspaces: Type.Array(DeletedWorkspaceSchema) }) },
      },
    },
    async (request) => ({ workspaces: (await workspaces.listDeletedWorkspaces({}, { caller: request.caller })).workspaces.map(deletedToJson) }),
  );

  app.post(
    '/workspaces/:id/restore',
    {
      schema: {
        tags,
        security,
        description:
          'Restores a deleted workspace during its grace period, with the repositories deleted with it (their packages, tokens and keys). 409 when a workspace created since holds its slug.',
        params: WorkspaceId,
        response: { 200: WorkspaceSchema },
      },
    },
    async (request) => toJson(await workspaces.restoreWorkspace({ id: request.params.id }, { caller: request.caller })),
  );

  app.get('/workspaces/:id', { schema: { tags, security, params: WorkspaceId, response: { 200: WorkspaceSchema } } }, async (request) =>
    toJson(await workspaces.getWorkspace({ id: request.params.id }, { caller: request.caller })),
  );

  app.delete(
    '/workspaces/:id',
    { schema: { tags, security, description: 'Deletes the workspace with its repositories and packages: hidden at once, restorable (POST …/restore) until the grace period (DELETION_GRACE_S) ends, then purged. Its slug is free meanwhile.', params: WorkspaceId } },
    async (request, reply) => {
      await workspaces.deleteWorkspace({ id: request.params.id }, { caller: request.caller });
      return reply.code(204).send();
    },
  );
};
