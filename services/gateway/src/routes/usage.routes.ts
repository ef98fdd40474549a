import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { ArtifactServiceDefinition } from '@packyard/proto/packyard/artifact/v1/artifact';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import type { GatewayOptions } from '../app';

const UsageSummarySchema = Type.Object({
  storageBytesUsed: Type.Integer(),
  storageBytesLimit: Type.Integer(),
  egressBytesUsed: Type.Integer({ description: 'bytes downloaded this calendar month (UTC)' }),
  egressBytesLimit: Type.Integer(),
});

const DownloadSummarySchema = Type.Object({
  buckets: Type.Array(Type.String(), { description: 'days, oldest first, UTC (2026-11-24)' }),
  counts: Type.Array(Type.Integer(), { description: 'downloads per day of buckets' }),
  total: Type.Integer(),
  topPackages: Type.Array(
    Type.Object({
      workspaceId: Type.String(),
      repositoryId: Type.String(),
      packageId: Type.String({ description: 'the most recently downloaded version (its page)' }),
      name: Type.String(),
      downloads: Type.Integer(),
    }),
    { description: 'at most 5 package names (per repository), most downloaded first' },
  ),
  workspaces: Type.Array(Type.Object({ workspaceId: Type.String(), downloads: Type.Integer() }), { description: 'workspaces with downloads, most first' }),
});

/** `/v1/usage/summary`: the caller's storage and this month's egress against the plan's limits. */
export const usageRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const workspaces = clients.client(WorkspaceServiceDefinition, 'workspace');
  app.get('/usage/summary', { schema: { tags: ['usage'], security: [{ bearer: [] }], response: { 200: UsageSummarySchema } } }, async (request) =>
    workspaces.getUsageSummary({}, { caller: request.caller }),
  );

  const artifact = clients.client(ArtifactServiceDefinition, 'artifact');
  app.get(
    '/usage/downloads',
    {
      schema: {
        tags: ['usage'],
        security: [{ bearer: [] }],
        description: "Package downloads per day across the caller's workspaces (the dashboard's card), per workspace, and the most downloaded packages",
        querystring: Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 30, description: 'days back, today included' })) }),
        response: { 200: DownloadSummarySchema },
      },
    },
    async (request) => {
      const summary = await artifact.getDownloadSummary({ days: request.query.days ?? 30 }, { caller: request.caller });
      return {
        ...summary,
        total: Number(summary.total),
        counts: summary.counts.map(Number),
        topPackages: summary.topPackages.map((entry) => ({ ...entry, downloads: Number(entry.downloads) })),
        workspaces: summary.workspaces.map((entry) => ({ ...entry, downloads: Number(entry.downloads) })),
      };
    },
  );
};
