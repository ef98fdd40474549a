import type { DomainEvent } from '@packyard/platform';
import type {
  WorkspaceCreated as WorkspaceCreatedData,
  WorkspaceDeleted as WorkspaceDeletedData,
  WorkspacePurged as WorkspacePurgedData,
  WorkspaceRestored as WorkspaceRestoredData,
} from '@packyard/proto/packyard/workspace/v1/events';

export type WorkspaceCreated = DomainEvent<'WorkspaceCreated', WorkspaceCreatedData>;
export type WorkspaceDeleted = DomainEvent<'WorkspaceDeleted', WorkspaceDeletedData>;
export type WorkspaceRestored = DomainEvent<'WorkspaceRestored', WorkspaceRestoredData>;
export type WorkspacePurged = DomainEvent<'WorkspacePurged', WorkspacePurgedData>;
export type WorkspaceEvent = WorkspaceCreated | WorkspaceDeleted | WorkspaceRestored | WorkspacePurged;

/** a deletion recorded before workspaces could be restored names no purge time: it was final */
export const wasPurgedAtOnce = (deleted: WorkspaceDeletedData) => !deleted.purgeAt;

/**
 * A workspace's stream is named after its slug: the slug is in every public repository
 * URL and must be unique across all users, and a stream can only be started once, so
 * two concurrent creations with one slug cannot both succeed. After a deletion the
 * slug is free again (during the grace period too) and the same stream holds the next
 * workspace; the deleted one can then no longer be restored under it.
 */
export const workspaceStream = (slug: string) => `workspace-${slug}`;
