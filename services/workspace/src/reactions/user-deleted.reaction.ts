import { decodeEvent, handleCommand, loadAggregate, type BusMessage, type EventStore, type ReadModelStore, type Reaction } from '@packyard/platform';
import { UserDeleted } from '@packyard/proto/packyard/identity/v1/events';
import { DELETED_WORKSPACES, WORKSPACES, type DeletedWorkspaceDocument, type WorkspaceDocument } from '../projections/workspaces.projection';
import { workspaceDecider } from '../workspaces/workspace.decider';
import { workspaceStream } from '../workspaces/workspace.events';

/**
 * UserDeleted → every workspace of the account is deleted (WorkspaceDeleted), and with it its
 * repositories, due for purging at once: nobody is left who could restore them.
 */
export const userDeletedReaction = (events: EventStore, readModels: ReadModelStore): Reaction => ({
  contexts: ['identity'],
  async handle(message: BusMessage) {
    const event = decodeEvent(message, { UserDeleted });
    if (!event) return;
    const { userId, deletedAt } = event.data;
    for (const workspace of await readModels.collection<WorkspaceDocument>(WORKSPACES).find({ ownerId: userId })) {
      const stream = workspaceStream(workspace.slug);
      // delivered again after a crash: a workspace deleted the first time is left as it is
      if ((await loadAggregate(events, stream, workspaceDecider)).state.holder?.workspaceId !== workspace.id) continue;
      await handleCommand(events, stream, workspaceDecider, { type: 'DeleteWorkspace', workspaceId: workspace.id, now: deletedAt, purgeAt: deletedAt }, {
        isIntegration: () => true,
        metadata: { causationId: message.id },
      });
    }
    // and the ones deleted before, still in their grace period
    for (const workspace of await readModels.collection<DeletedWorkspaceDocument>(DELETED_WORKSPACES).find({ ownerId: userId })) {
      await handleCommand(events, workspaceStream(workspace.slug), workspaceDecider, { type: 'PurgeWorkspace', workspaceId: workspace.id, now: deletedAt }, {
        isIntegration: () => true,
        metadata: { causationId: message.id },
      });
    }
  },
});
