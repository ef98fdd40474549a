import { decodeEvent, handleCommand, type BusMessage, type EventStore, type Reaction } from '@packyard/platform';
import { WorkspaceDeleted, WorkspacePurged, WorkspaceRestored } from '@packyard/proto/packyard/workspace/v1/events';
import { repositoriesDecider, type RepositoriesCommand } from '../repositories/repositories.decider';
import { isRepositoryIntegrationEvent, repositoriesStream } from '../repositories/repository.events';

const FOLLOWED = { WorkspaceDeleted, WorkspaceRestored, WorkspacePurged };

/** what a workspace's deletion, restoration and purge do to the repositories in it */
const commandOf = (message: BusMessage): RepositoriesCommand | undefined => {
  const event = decodeEvent(message, FOLLOWED);
  switch (event?.type) {
    // each live repository is deleted with the workspace (RepositoryDeleted, withWorkspace)
    case 'WorkspaceDeleted': {
      const { workspaceId, deletedAt } = event.data;
      return { type: 'CloseWorkspace', workspaceId, now: deletedAt };
    }
    // those come back (RepositoryRestored); ones deleted on their own before stay deleted
    case 'WorkspaceRestored': {
      const { workspaceId, restoredAt } = event.data;
      return { type: 'ReopenWorkspace', workspaceId, now: restoredAt };
    }
    // every deleted repository of it is purged (RepositoryPurged)
    case 'WorkspacePurged': {
      const { workspaceId, purgedAt } = event.data;
      return { type: 'PurgeWorkspace', workspaceId, now: purgedAt };
    }
    default:
      return undefined;
  }
};

export const workspaceEventsReaction = (events: EventStore): Reaction => ({
  contexts: ['workspace'],
  async handle(message: BusMessage) {
    const command = commandOf(message);
    if (!command) return;
    await handleCommand(events, repositoriesStream(command.workspaceId), repositoriesDecider, command, {
      isIntegration: isRepositoryIntegrationEvent,
      metadata: { causationId: message.id },
    });
  },
});
