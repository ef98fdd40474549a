import { decodeEvent, handleCommand, recordInbox, type BusMessage, type EventStore, type ReadModelStore, type Reaction } from '@packyard/platform';
import { RepositoryPurged } from '@packyard/proto/packyard/repository/v1/events';
import { ACCESS_TOKENS, REPO_TOKENS } from '../projections/tokens.projection';
import { accessTokenDecider } from '../tokens/access-token.decider';
import { repoTokenDecider } from '../tokens/repo-token.decider';
import { accessTokenStream, isIntegration, repoTokenStream } from '../tokens/token.events';

const SUSPENSIONS = new Set(['RepositoryDeleted', 'RepositoryRestored', 'RepositoryPurged']);

/**
 * RepositoryDeleted/Restored → its tokens are refused during the grace period, and accepted
 * again after a restoration (recorded in the inbox, for the suspended repositories the
 * validator follows); RepositoryPurged → its repository tokens and the access tokens limited
 * to it are revoked (they could open nothing else).
 */
export const repositoryEventsReaction = (events: EventStore, readModels: ReadModelStore): Reaction => ({
  contexts: ['repository'],
  async handle(message: BusMessage) {
    if (SUSPENSIONS.has(message.type)) await recordInbox(events, 'repository', message);
    const event = decodeEvent(message, { RepositoryPurged });
    if (!event) return;
    const { repositoryId, purgedAt } = event.data;
    const metadata = { causationId: message.id };
    for (const token of await readModels.collection(REPO_TOKENS).find({ repositoryId })) {
      await handleCommand(events, repoTokenStream(token.id), repoTokenDecider, { type: 'RevokeRepoToken', tokenId: token.id, now: purgedAt }, { isIntegration, metadata });
    }
    for (const token of await readModels.collection(ACCESS_TOKENS).find({ repositoryId })) {
      await handleCommand(events, accessTokenStream(token.id), accessTokenDecider, { type: 'RevokeAccessToken', tokenId: token.id, now: purgedAt }, { isIntegration, metadata });
    }
  },
});
