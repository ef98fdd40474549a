import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import type { GatewayOptions } from '../app';

const UsageSummarySchema = Type.Object({
  storageBytesUsed: Type.Integer(),
  storageBytesLimit: Type.Integer(),
  egressBytesUsed: Type.Integer({ description: 'bytes downloaded this calendar month (UTC)' }),
  egressBytesLimit: Type.Integer(),
});

/** `/v1/usage/summary`: the caller's storage and this month's egress against the plan's limits. */
export const usageRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const workspaces = clients.client(WorkspaceServiceDefinition, 'workspace');
  app.get('/usage/summary', { schema: { tags: ['usage'], security: [{ bearer: [] }], response: { 200: UsageSummarySchema } } }, async (request) =>
    workspaces.getUsageSummary({}, { caller: request.caller }),
  );
};
