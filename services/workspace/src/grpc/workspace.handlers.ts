import { randomUUID } from 'node:crypto';
import type { ServiceImplementation } from 'nice-grpc';
import { forbidden, handleCommand, type CallerContext, type EventSourcing } from '@packyard/platform';
import type { Workspace, WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import {
  egressIn,
  monthOf,
  OWNER_USAGE,
  WORKSPACE_REPOSITORIES,
  WORKSPACE_USAGE,
  WORKSPACES,
  type UsageDocument,
  type WorkspaceDocument,
  type WorkspaceRepositoryDocument,
} from '../projections/workspaces.projection';
import { AUDIT_ENTRIES, type AuditEntryDocument } from '../projections/audit-log.projection';
import { workspaceDecider } from '../workspaces/workspace.decider';
import { slugFor } from '../workspaces/workspace-slug';
import { workspaceStream } from '../workspaces/workspace.events';
import { workspaceVisibility } from './workspace-visibility';

export interface PlanLimits {
  storageLimitBytes: number;
  egressLimitBytes: number;
}

const isIntegration = () => true;
const AUDIT_PAGE_SIZE = 50;
const MAX_AUDIT_PAGE_SIZE = 1000;
export const LIMITED_TOKEN = 'This token is limited to one repository';

export function workspaceHandlers(es: EventSourcing, limits: PlanLimits): ServiceImplementation<typeof WorkspaceServiceDefinition, CallerContext> {
  const workspaces = es.readModels.collection<WorkspaceDocument>(WORKSPACES);
  const repositories = es.readModels.collection<WorkspaceRepositoryDocument>(WORKSPACE_REPOSITORIES);
  const workspaceUsage = es.readModels.collection<UsageDocument>(WORKSPACE_USAGE);
  const ownerUsage = es.readModels.collection<UsageDocument>(OWNER_USAGE);
  const auditEntries = es.readModels.collection<AuditEntryDocument>(AUDIT_ENTRIES);

  const { maySee, visibleWorkspace } = workspaceVisibility(es.readModels);

  const toWorkspace = async (doc: WorkspaceDocument): Promise<Workspace> => {
    const usage = await workspaceUsage.get(doc.id);
    return {
      ...doc,
      repositoryCount: await repositories.count({ workspaceId: doc.id }),
      storageBytesUsed: usage?.storageBytesUsed ?? 0,
      bandwidthBytesMonth: egressIn(usage, monthOf(new Date().toISOString())),
    };
  };

  return {
    async createWorkspace(request, { caller }) {
      if (caller.repositoryId) throw forbidden(LIMITED_TOKEN);
      const workspaceId = randomUUID();
      const slug = slugFor(request.name, request.slug);
      const result = await handleCommand(
        es.events,
        workspaceStream(slug),
        workspaceDecider,
        { type: 'CreateWorkspace', workspaceId, ownerId: caller.userId, name: request.name, slug, description: request.description, now: new Date().toISOString() },
        { isIntegration, metadata: { caller } },
      );
      await es.caughtUp(result.lastPosition);
      return toWorkspace(await visibleWorkspace(caller, workspaceId));
    },

    async listWorkspaces(_request, { caller }) {
      if (!caller.userId) return { workspaces: [] };
      const docs = await workspaces.find({ ownerId: caller.userId }, { sort: { field: 'createdAt', direction: 1 } });
      const visible = [];
      for (const doc of docs) if (await maySee(caller, doc)) visible.push(await toWorkspace(doc));
      return { workspaces: visible };
    },

    async getWorkspace(request, { caller }) {
      return toWorkspace(await visibleWorkspace(caller, request.id));
    },

    async deleteWorkspace(request, { caller }) {
      const workspace = await visibleWorkspace(caller, request.id);
      // the workspace holds other repositories than the one the token is limited to
      if (caller.repositoryId) throw forbidden(LIMITED_TOKEN);
      const result = await handleCommand(
        es.events,
        workspaceStream(workspace.slug),
        workspaceDecider,
        { type: 'DeleteWorkspace', workspaceId: workspace.id, now: new Date().toISOString() },
        { isIntegration, metadata: { caller } },
      );
      await es.caughtUp(result.lastPosition);
      return {};
    },

    async getUsageSummary(_request, { caller }) {
      const usage = caller.userId ? await ownerUsage.get(caller.userId) : undefined;
      return {
        storageBytesUsed: usage?.storageBytesUsed ?? 0,
        storageBytesLimit: limits.storageLimitBytes,
        egressBytesUsed: egressIn(usage, monthOf(new Date().toISOString())),
        egressBytesLimit: limits.egressLimitBytes,
      };
    },

    async listAuditEntries(request, { caller }) {
      const workspace = await visibleWorkspace(caller, request.workspaceId);
      const size = Math.min(Math.max(request.size || AUDIT_PAGE_SIZE, 1), MAX_AUDIT_PAGE_SIZE);
      const filter = { workspaceId: workspace.id, ...(request.action ? { action: request.action } : {}) };
      const contains = request.actor.trim() ? { field: 'actor', value: request.actor.trim() } : undefined;
      const [docs, total] = await Promise.all([
        auditEntries.find(filter, { contains, sort: { field: 'at', direction: -1 }, skip: Math.max(request.page, 0) * size, limit: size }),
        auditEntries.count(filter, { contains }),
      ]);
      return { entries: docs.map(({ workspaceId: _workspaceId, packageId: _packageId, ...entry }) => entry), total };
    },
  };
}
