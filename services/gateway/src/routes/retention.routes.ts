import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { ArtifactServiceDefinition } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { GatewayOptions } from '../app';
import { PackageSchema, toPackageJson } from './packages.routes';

const RetentionPolicySchema = Type.Object({
  keepVersions: Type.Integer({ minimum: 0, maximum: 1000, description: 'newest versions kept per (name, distribution, architecture); 0 keeps every version' }),
  keepDownloadedDays: Type.Integer({ minimum: 0, maximum: 3650, description: 'a version downloaded within this many days is never deleted; 0: no such rule' }),
});

const RepositoryPath = Type.Object({ workspaceId: Type.String(), repoId: Type.String() });

/** `/v1/workspaces/{workspaceId}/repos/{repoId}/retention`: the repository's retention policy, a dry run and an immediate run. */
export const retentionRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const artifact = clients.client(ArtifactServiceDefinition, 'artifact');
  const tags = ['retention'];
  const security = [{ bearer: [] }];
  const ref = (params: { workspaceId: string; repoId: string }) => ({ workspaceId: params.workspaceId, repositoryId: params.repoId });

  app.get(
    '/workspaces/:workspaceId/repos/:repoId/retention',
    { schema: { tags, security, description: 'The retention policy (0 and 0 when none is set: keep everything)', params: RepositoryPath, response: { 200: RetentionPolicySchema } } },
    async (request) => artifact.getRetentionPolicy(ref(request.params), { caller: request.caller }),
  );

  app.put(
    '/workspaces/:workspaceId/repos/:repoId/retention',
    {
      schema: {
        tags,
        security,
        description: 'Sets the retention policy; it runs after every upload, copy and promotion into the repository',
        params: RepositoryPath,
        body: RetentionPolicySchema,
        response: { 200: RetentionPolicySchema },
      },
    },
    async (request) => artifact.setRetentionPolicy({ ...ref(request.params), policy: request.body }, { caller: request.caller }),
  );

  app.post(
    '/workspaces/:workspaceId/repos/:repoId/retention/apply',
    {
      config: { scope: 'publish' },
      schema: {
        tags,
        security,
        description: 'Deletes what the policy lets go now and lists it; with ?dryRun=true only lists what would go',
        params: RepositoryPath,
        querystring: Type.Object({ dryRun: Type.Optional(Type.Boolean({ default: false })) }),
        response: { 200: Type.Object({ dryRun: Type.Boolean(), packages: Type.Array(PackageSchema) }) },
      },
    },
    async (request) => {
      const dryRun = request.query.dryRun ?? false;
      const { packages } = await artifact.applyRetention({ ...ref(request.params), dryRun }, { caller: request.caller });
      return { dryRun, packages: packages.map(toPackageJson) };
    },
  );
};
