import type { DomainEvent } from '@packyard/platform';
import type { WorkspaceCreated as WorkspaceCreatedData, WorkspaceDeleted as WorkspaceDeletedData } from '@packyard/proto/packyard/workspace/v1/events';

export type WorkspaceCreated = DomainEvent<'WorkspaceCreated', WorkspaceCreatedData>;
export type WorkspaceDeleted = DomainEvent<'WorkspaceDeleted', WorkspaceDeletedData>;
export type WorkspaceEvent = WorkspaceCreated | WorkspaceDeleted;

/**
 * A workspace's stream is named after its slug: the slug is in every public repository
 * URL and must be unique across all users, and a stream can only be started once, so
 * two concurrent creations with one slug cannot both succeed. After a deletion the
 * slug is free again and the same stream holds the next workspace.
 */
export const workspaceStream = (slug: string) => `workspace-${slug}`;
