import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import type { GatewayOptions } from '../app';

const ACTIONS = ['package.uploaded', 'package.copied', 'package.promoted', 'package.deleted', 'repository.created', 'repository.deleted', 'repository.restored', 'repository.purged', 'token.created', 'token.revoked'] as const;

const AuditEntrySchema = Type.Object({
  id: Type.String(),
  at: Type.String({ format: 'date-time' }),
  action: Type.String({ enum: [...ACTIONS] }),
  actorKind: Type.Union([Type.Literal('user'), Type.Literal('token'), Type.Literal('system')]),
  actor: Type.String({ description: "the user's email, `token <name> (<email>)`, or what the system acted by (e.g. retention policy)" }),
  userId: Type.String(),
  tokenId: Type.String({ description: 'the account token or API key used; empty for a signed-in user' }),
  address: Type.String({ description: 'client IP address as the gateway saw it' }),
  target: Type.String(),
  repositoryId: Type.String(),
  reason: Type.String({ description: 'package.deleted: deleted | retention | repository-deleted' }),
});

const AuditQuery = Type.Object({
  action: Type.Optional(Type.String({ enum: [...ACTIONS], description: 'only this action' })),
  actor: Type.Optional(Type.String({ maxLength: 200, description: 'case-insensitive part of the actor' })),
});

const EXPORT_PAGE = 1000;

/** `/v1/workspaces/{id}/audit`: the workspace's audit log, paged and filtered, and its export as JSON lines. */
export const auditRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const workspaces = clients.client(WorkspaceServiceDefinition, 'workspace');
  const tags = ['audit'];
  const security = [{ bearer: [] }];

  app.get(
    '/workspaces/:id/audit',
    {
      schema: {
        tags,
        security,
        description: 'Who did what in the workspace, when and from which address; newest first',
        params: Type.Object({ id: Type.String() }),
        querystring: Type.Intersect([
          AuditQuery,
          Type.Object({ page: Type.Optional(Type.Integer({ minimum: 0, default: 0 })), size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) }),
        ]),
        response: { 200: Type.Object({ items: Type.Array(AuditEntrySchema), total: Type.Integer() }) },
      },
    },
    async (request) => {
      const { entries, total } = await workspaces.listAuditEntries(
        { workspaceId: request.params.id, action: request.query.action ?? '', actor: request.query.actor ?? '', page: request.query.page ?? 0, size: request.query.size ?? 50 },
        { caller: request.caller },
      );
      return { items: entries.map((entry) => ({ ...entry, actorKind: entry.actorKind as 'user' | 'token' | 'system' })), total };
    },
  );

  app.get(
    '/workspaces/:id/audit/export',
    {
      schema: {
        tags,
        security,
        description: 'The whole audit log (with the same filters) as JSON lines (application/x-ndjson), newest first',
        params: Type.Object({ id: Type.String() }),
        querystring: AuditQuery,
        produces: ['application/x-ndjson'],
      },
    },
    async (request, reply) => {
      const lines: string[] = [];
      for (let page = 0; ; page++) {
        const { entries, total } = await workspaces.listAuditEntries(
          { workspaceId: request.params.id, action: request.query.action ?? '', actor: request.query.actor ?? '', page, size: EXPORT_PAGE },
          { caller: request.caller },
        );
        lines.push(...entries.map((entry) => JSON.stringify(entry)));
        if (!entries.length || lines.length >= total) break;
      }
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-${request.params.id}.jsonl"`)
        .send(lines.length ? lines.join('\n') + '\n' : '');
    },
  );
};
