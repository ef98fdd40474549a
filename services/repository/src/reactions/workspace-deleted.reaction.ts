import { handleCommand, type BusMessage, type EventStore, type Reaction } from '@packyard/platform';
import type { WorkspaceDeleted } from '@packyard/proto/packyard/workspace/v1/events';
import { repositoriesDecider } from '../repositories/repositories.decider';
import { isRepositoryIntegrationEvent, repositoriesStream } from '../repositories/repository.events';

/** WorkspaceDeleted → close the workspace's repositories: each one is deleted (RepositoryDeleted). */
export const workspaceDeletedReaction = (events: EventStore): Reaction => ({
  contexts: ['workspace'],
  async handle(message: BusMessage) {
    if (message.type !== 'WorkspaceDeleted') return;
    const { workspaceId, deletedAt } = message.data as WorkspaceDeleted;
    await handleCommand(events, repositoriesStream(workspaceId), repositoriesDecider, { type: 'CloseWorkspace', workspaceId, now: deletedAt }, {
      isIntegration: isRepositoryIntegrationEvent,
      metadata: { causationId: message.id },
    });
  },
});
