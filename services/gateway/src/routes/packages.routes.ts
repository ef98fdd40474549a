import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { waitUntilServed } from '@packyard/platform';
import { ArtifactServiceDefinition, type Package } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { GatewayOptions } from '../app';

/** The spec's package object (§6) plus the distribution it was uploaded for. */
export const PackageSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version: Type.String(),
  architecture: Type.String({ description: '"source" for a Debian source package' }),
  filename: Type.String({ description: 'derived from name, version and architecture (a source package: its .dsc, name_version.dsc); the extension says the kind: .deb, .udeb, .ddeb, .dsc or .rpm' }),
  sizeBytes: Type.Integer({ description: 'the stored file (a source package: its .dsc)' }),
  downloads: Type.Integer(),
  publishedAt: Type.String({ format: 'date-time' }),
  distribution: Type.String({ description: 'distro/version, e.g. ubuntu/noble' }),
});

export const toPackageJson = ({ repositoryId: _repositoryId, sha256: _sha256, ...item }: Package) => item;

const PackagesPath = Type.Object({ workspaceId: Type.String(), repoId: Type.String() });
const PackagePath = Type.Object({ workspaceId: Type.String(), repoId: Type.String(), packageId: Type.String() });

const CopyBody = Type.Object({
  targetRepositoryId: Type.String({ minLength: 1, description: 'a repository of the same workspace and kind' }),
  distribution: Type.Optional(Type.String({ description: "distro/version in the target (default: the package's own)" })),
});

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
        params: PackagePath,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await artifact.deletePackage({ workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, packageId: request.params.packageId }, { caller: request.caller });
      return reply.code(204).send(null);
    },
  );

  for (const action of ['copy', 'promote'] as const) {
    app.post(
      `/workspaces/:workspaceId/repos/:repoId/packages/:packageId/${action}`,
      {
        config: { scope: 'publish' },
        schema: {
          tags,
          security,
          description:
            (action === 'copy'
              ? 'Copies the package into another repository of the workspace without a re-upload: the same file, new index entries (event PackageCopied). '
              : 'Moves the package to another repository of the workspace: a copy (event PackagePromoted), then the package leaves this repository. ') +
            'With ?wait=published the answer comes once the target publishes it (202 when that takes longer than 30 s); 409 when the target has that version already.',
          params: PackagePath,
          querystring: Type.Object({ wait: Type.Optional(Type.Literal('published')) }),
          body: CopyBody,
          response: { 201: PackageSchema, 202: PackageSchema },
        },
      },
      async (request, reply) => {
        const copied = await artifact.copyPackage(
          {
            workspaceId: request.params.workspaceId,
            repositoryId: request.params.repoId,
            packageId: request.params.packageId,
            targetRepositoryId: request.body.targetRepositoryId,
            distribution: request.body.distribution ?? '',
            promote: action === 'promote',
          },
          { caller: request.caller },
        );
        const published = request.query.wait === 'published' ? await waitUntilServed(clients, copied.repositoryId, copied.id, request.caller) : true;
        return reply.code(published ? 201 : 202).send(toPackageJson(copied));
      },
    );
  }
};
