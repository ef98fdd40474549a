import type { DomainEvent } from '@packyard/platform';
import type {
  RepositoryCreated as RepositoryCreatedData,
  RepositoryDeleted as RepositoryDeletedData,
  RepositoryPurged as RepositoryPurgedData,
  RepositoryRestored as RepositoryRestoredData,
} from '@packyard/proto/packyard/repository/v1/events';

export type RepositoryCreated = DomainEvent<'RepositoryCreated', RepositoryCreatedData>;
export type RepositoryDeleted = DomainEvent<'RepositoryDeleted', RepositoryDeletedData>;
export type RepositoryRestored = DomainEvent<'RepositoryRestored', RepositoryRestoredData>;
export type RepositoryPurged = DomainEvent<'RepositoryPurged', RepositoryPurgedData>;
/** the workspace is deleted: no repository can be created in it until it is restored (WorkspaceReopened) */
export type WorkspaceClosed = DomainEvent<'WorkspaceClosed', { workspaceId: string; closedAt: string }>;
export type WorkspaceReopened = DomainEvent<'WorkspaceReopened', { workspaceId: string; reopenedAt: string }>;

export type RepositoriesEvent = RepositoryCreated | RepositoryDeleted | RepositoryRestored | RepositoryPurged | WorkspaceClosed | WorkspaceReopened;

/** RepositoryCreated/Deleted/Restored/Purged go to `packyard.repository.events.v1` */
export const isRepositoryIntegrationEvent = (event: RepositoriesEvent) => event.type !== 'WorkspaceClosed' && event.type !== 'WorkspaceReopened';

/** a deletion recorded before repositories could be restored names no purge time and no workspace: it was final */
export const wasPurgedAtOnce = (deleted: RepositoryDeletedData) => !deleted.purgeAt && !deleted.withWorkspace;

/** one stream per workspace holds its repositories, so names are unique within it */
export const repositoriesStream = (workspaceId: string) => `repositories-${workspaceId}`;
