import { PackageDeleted, PackageUploaded } from '@packyard/formats/recorded-distributions';
import { decodeEvent, isInboxEvent, type Collection, type Projection, type RecordedEvent } from '@packyard/platform';
import { FilesServed } from '@packyard/proto/packyard/delivery/v1/events';
import { RepositoryCreated, RepositoryDeleted, RepositoryPurged, RepositoryRestored } from '@packyard/proto/packyard/repository/v1/events';
import { WorkspaceCreated, WorkspaceDeleted, WorkspacePurged, WorkspaceRestored } from '@packyard/proto/packyard/workspace/v1/events';
import { wasPurgedAtOnce } from '../workspaces/workspace.events';

export interface WorkspaceDocument {
  id: string;
  ownerId: string;
  name: string;
  slug: string;
  description: string;
  createdAt: string;
}

/** a deleted workspace in its grace period: restorable until `purgeAt` */
export interface DeletedWorkspaceDocument extends WorkspaceDocument {
  deletedAt: string;
  purgeAt: string;
}

/** which workspace a repository is in: the repository count, and what a repository-limited token may see */
export interface WorkspaceRepositoryDocument {
  id: string;
  workspaceId: string;
  ownerId: string;
}

/** usage of a workspace (id = workspace id) or of a user across workspaces (id = user id) */
export interface UsageDocument {
  id: string;
  storageBytesUsed: number;
  /** `YYYY-MM` the egress counter is for */
  egressMonth: string;
  egressBytesMonth: number;
  /** the last event position applied: a counter is never bumped twice by a replayed event */
  position: number;
}

export const WORKSPACES = 'workspaces';
export const DELETED_WORKSPACES = 'deleted_workspaces';
export const WORKSPACE_REPOSITORIES = 'workspace_repositories';
export const WORKSPACE_USAGE = 'workspace_usage';
export const OWNER_USAGE = 'owner_usage';

export const monthOf = (isoTime: string) => isoTime.slice(0, 7);

/** the egress of `month` recorded in a usage document (0 once the month is over) */
export const egressIn = (usage: UsageDocument | undefined, month: string) => (usage?.egressMonth === month ? usage.egressBytesMonth : 0);

async function bump(usage: Collection<UsageDocument>, id: string, event: RecordedEvent, change: (doc: UsageDocument) => UsageDocument) {
  if (!id) return;
  const doc = (await usage.get(id)) ?? { id, storageBytesUsed: 0, egressMonth: '', egressBytesMonth: 0, position: 0 };
  if (doc.position >= event.position) return;
  await usage.upsert({ ...change(doc), position: event.position });
}

const addStorage = (bytes: number) => (doc: UsageDocument) => ({ ...doc, storageBytesUsed: Math.max(0, doc.storageBytesUsed + bytes) });

const addEgress = (month: string, bytes: number) => (doc: UsageDocument) =>
  month < doc.egressMonth ? doc : { ...doc, egressMonth: month, egressBytesMonth: (month === doc.egressMonth ? doc.egressBytesMonth : 0) + bytes };

const FOLLOWED = {
  WorkspaceCreated,
  WorkspaceDeleted,
  WorkspaceRestored,
  WorkspacePurged,
  RepositoryCreated,
  RepositoryDeleted,
  RepositoryRestored,
  RepositoryPurged,
  PackageUploaded,
  PackageDeleted,
  FilesServed,
};

/**
 * Workspaces (the deleted ones apart, with their usage kept until they are purged), and their usage from other modules' events (recorded in this module's
 * inbox): repositories from repository's RepositoryCreated/Deleted, storage from
 * artifact's PackageUploaded/Deleted sizes, egress from delivery's FilesServed.
 */
export const workspacesProjection: Projection = {
  name: 'workspaces',
  collections: [WORKSPACES, DELETED_WORKSPACES, WORKSPACE_REPOSITORIES, WORKSPACE_USAGE, OWNER_USAGE],
  async handle(recorded, readModels) {
    const event = decodeEvent(recorded, FOLLOWED);
    if (!event) return;
    const workspaces = readModels.collection<WorkspaceDocument>(WORKSPACES);
    const deletedWorkspaces = readModels.collection<DeletedWorkspaceDocument>(DELETED_WORKSPACES);
    const repositories = readModels.collection<WorkspaceRepositoryDocument>(WORKSPACE_REPOSITORIES);
    const workspaceUsage = readModels.collection<UsageDocument>(WORKSPACE_USAGE);
    const ownerUsage = readModels.collection<UsageDocument>(OWNER_USAGE);
    const fromInbox = isInboxEvent(recorded.stream);
    switch (event.type) {
      case 'WorkspaceCreated': {
        const data = event.data;
        await workspaces.upsert({ id: data.workspaceId, ownerId: data.ownerId, name: data.name, slug: data.slug, description: data.description, createdAt: data.createdAt });
        return;
      }
      case 'WorkspaceDeleted': {
        const data = event.data;
        const workspace = await workspaces.get(data.workspaceId);
        await workspaces.delete(data.workspaceId);
        if (wasPurgedAtOnce(data)) await workspaceUsage.delete(data.workspaceId);
        else if (workspace) await deletedWorkspaces.upsert({ ...workspace, deletedAt: data.deletedAt, purgeAt: data.purgeAt });
        return;
      }
      case 'WorkspaceRestored': {
        const { workspaceId } = event.data;
        const deleted = await deletedWorkspaces.get(workspaceId);
        if (!deleted) return;
        const { deletedAt: _deletedAt, purgeAt: _purgeAt, ...workspace } = deleted;
        await workspaces.upsert(workspace);
        await deletedWorkspaces.delete(workspaceId);
        return;
      }
      case 'WorkspacePurged': {
        const { workspaceId } = event.data;
        await deletedWorkspaces.delete(workspaceId);
        await workspaceUsage.delete(workspaceId);
        return;
      }
      case 'RepositoryCreated': {
        if (!isInboxEvent(recorded.stream, 'repository')) return;
        const data = event.data;
        await repositories.upsert({ id: data.repositoryId, workspaceId: data.workspaceId, ownerId: data.ownerId });
        return;
      }
      case 'RepositoryDeleted': {
        if (!isInboxEvent(recorded.stream, 'repository')) return;
        const data = event.data;
        // one deleted with its workspace still counts in it (the workspace is hidden meanwhile)
        if (!data.withWorkspace) await repositories.delete(data.repositoryId);
        return;
      }
      case 'RepositoryRestored': {
        if (!isInboxEvent(recorded.stream, 'repository')) return;
        const data = event.data;
        await repositories.upsert({ id: data.repositoryId, workspaceId: data.workspaceId, ownerId: data.ownerId });
        return;
      }
      case 'RepositoryPurged': {
        if (!isInboxEvent(recorded.stream, 'repository')) return;
        await repositories.delete(event.data.repositoryId);
        return;
      }
      case 'PackageUploaded': {
        if (!fromInbox) return;
        const data = event.data;
        if (await workspaces.get(data.workspaceId)) await bump(workspaceUsage, data.workspaceId, recorded, addStorage(data.sizeBytes));
        await bump(ownerUsage, data.ownerId, recorded, addStorage(data.sizeBytes));
        return;
      }
      case 'PackageDeleted': {
        if (!fromInbox) return;
        const data = event.data;
        // the workspace's own counter is gone with the workspace; the owner's still counts
        if (await workspaces.get(data.workspaceId)) await bump(workspaceUsage, data.workspaceId, recorded, addStorage(-data.sizeBytes));
        await bump(ownerUsage, data.ownerId, recorded, addStorage(-data.sizeBytes));
        return;
      }
      case 'FilesServed': {
        if (!fromInbox) return;
        const data = event.data;
        const month = monthOf(data.lastServedAt);
        if (await workspaces.get(data.workspaceId)) await bump(workspaceUsage, data.workspaceId, recorded, addEgress(month, data.bytes));
        await bump(ownerUsage, data.ownerId, recorded, addEgress(month, data.bytes));
        return;
      }
    }
  },
};
