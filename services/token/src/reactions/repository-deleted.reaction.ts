import { handleCommand, type BusMessage, type EventStore, type ReadModelStore, type Reaction } from '@packyard/platform';
import type { RepositoryDeleted } from '@packyard/proto/packyard/repository/v1/events';
import { ACCESS_TOKENS, REPO_TOKENS } from '../projections/tokens.projection';
import { accessTokenDecider } from '../tokens/access-token.decider';
import { repoTokenDecider } from '../tokens/repo-token.decider';
import { accessTokenStream, isIntegration, repoTokenStream } from '../tokens/token.events';

/** RepositoryDeleted → revoke its repository tokens and the access tokens limited to it (they could open nothing else). */
export const repositoryDeletedReaction = (events: EventStore, readModels: ReadModelStore): Reaction => ({
  contexts: ['repository'],
  async handle(message: BusMessage) {
    if (message.type !== 'RepositoryDeleted') return;
    const { repositoryId, deletedAt } = message.data as RepositoryDeleted;
    const metadata = { causationId: message.id };
    for (const token of await readModels.collection(REPO_TOKENS).find({ repositoryId })) {
      await handleCommand(events, repoTokenStream(token.id), repoTokenDecider, { type: 'RevokeRepoToken', tokenId: token.id, now: deletedAt }, { isIntegration, metadata });
    }
    for (const token of await readModels.collection(ACCESS_TOKENS).find({ repositoryId })) {
      await handleCommand(events, accessTokenStream(token.id), accessTokenDecider, { type: 'RevokeAccessToken', tokenId: token.id, now: deletedAt }, { isIntegration, metadata });
    }
  },
});
