import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { ArtifactServiceDefinition, type Package } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { GatewayOptions } from '../app';

/** The spec's package object (§6) plus the distribution it was uploaded for. */
export const PackageSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version: Type.String(),
  architecture: Type.String(),
  filename: Type.String({ description: 'derived from name, version and architecture' }),
  sizeBytes: Type.Integer(),
  downloads: Type.Integer(),
  publishedAt: Type.String({ format: 'date-time' }),
  distribution: Type.String({ description: 'distro/version, e.g. ubuntu/noble' }),
});

export const toPackageJson = ({ repositoryId: _repositoryId, sha256: _sha256, ...item }: Package) => item;

const PackagesPath = Type.Object({ workspaceId: Type.String(), repoId: Type.String() });

/** `/v1/workspaces/{workspaceId}/repos/{repoId}/packages` (spec §7): list and search, delete. */
export const packagesRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const artifact = clients.client(ArtifactServiceDefinition, 'artifact');
  const tags = ['packages'];
  const security = [{ bearer: [] }];

  app.get(
    '/workspaces/:workspaceId/repos/:repoId/packages',
    {
      schema: {
        tags,
        security,
        description: 'Packages of a repository, newest first; q matches the file name (case-insensitive)',
        params: PackagesPath,
        querystring: Type.Object({
          q: Type.Optional(Type.String({ maxLength: 200 })),
          page: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'zero-based' })),
          size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
        }),
        response: { 200: Type.Object({ items: Type.Array(PackageSchema), total: Type.Integer() }) },
      },
    },
    async (request) => {
      const { items, total } = await artifact.listPackages(
        { workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, q: request.query.q ?? '', page: request.query.page ?? 0, size: request.query.size ?? 20 },
        { caller: request.caller },
      );
      return { items: items.map(toPackageJson), total };
    },
  );

  app.delete(
    '/workspaces/:workspaceId/repos/:repoId/packages/:packageId',
    {
      config: { scope: 'publish' },
      schema: {
        tags,
        security,
        description: 'Deletes a package: it leaves every index it was in; its file is freed once no package uses it',
        params: Type.Object({ workspaceId: Type.String(), repoId: Type.String(), packageId: Type.String() }),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await artifact.deletePackage({ workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, packageId: request.params.packageId }, { caller: request.caller });
      return reply.code(204).send(null);
    },
  );
};
