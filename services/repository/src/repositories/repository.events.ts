import type { DomainEvent } from '@packyard/platform';
import type { RepositoryCreated as RepositoryCreatedData, RepositoryDeleted as RepositoryDeletedData } from '@packyard/proto/packyard/repository/v1/events';

export type RepositoryCreated = DomainEvent<'RepositoryCreated', RepositoryCreatedData>;
export type RepositoryDeleted = DomainEvent<'RepositoryDeleted', RepositoryDeletedData>;
/** the workspace is gone: no repository can be created in it any more */
export type WorkspaceClosed = DomainEvent<'WorkspaceClosed', { workspaceId: string; closedAt: string }>;

export type RepositoriesEvent = RepositoryCreated | RepositoryDeleted | WorkspaceClosed;

/** RepositoryCreated and RepositoryDeleted go to `packyard.repository.events.v1` */
export const isRepositoryIntegrationEvent = (event: RepositoriesEvent) => event.type !== 'WorkspaceClosed';

/** one stream per workspace holds its repositories, so names are unique within it */
export const repositoriesStream = (workspaceId: string) => `repositories-${workspaceId}`;
