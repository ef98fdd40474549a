import { decodeEvent, handleCommand, type BusMessage, type EventStore, type ReadModelStore, type Reaction } from '@packyard/platform';
import { UserDeleted } from '@packyard/proto/packyard/identity/v1/events';
import { ACCESS_TOKENS } from '../projections/tokens.projection';
import { accessTokenDecider } from '../tokens/access-token.decider';
import { accessTokenStream, isIntegration } from '../tokens/token.events';

/**
 * UserDeleted → revoke the account's access tokens. Its repository tokens go with its
 * repositories (RepositoryPurged, after the workspaces are deleted, at once for a deleted account).
 */
export const userDeletedReaction = (events: EventStore, readModels: ReadModelStore): Reaction => ({
  contexts: ['identity'],
  async handle(message: BusMessage) {
    const event = decodeEvent(message, { UserDeleted });
    if (!event) return;
    const { userId, deletedAt } = event.data;
    for (const token of await readModels.collection(ACCESS_TOKENS).find({ ownerId: userId })) {
      // revoking a revoked token records nothing: a second delivery is harmless
      await handleCommand(events, accessTokenStream(token.id), accessTokenDecider, { type: 'RevokeAccessToken', tokenId: token.id, now: deletedAt }, { isIntegration, metadata: { causationId: message.id } });
    }
  },
});
