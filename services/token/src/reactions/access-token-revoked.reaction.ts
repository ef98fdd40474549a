import { decodeEvent, handleCommand, type BusMessage, type EventStore, type ReadModelStore, type Reaction } from '@packyard/platform';
import { AccessTokenRevoked } from '@packyard/proto/packyard/token/v1/events';
import { REPO_TOKEN_REVEALS, type RepoTokenRevealDocument } from '../projections/tokens.projection';
import { repoTokenDecider } from '../tokens/repo-token.decider';
import { isIntegration, repoTokenStream } from '../tokens/token.events';

/**
 * AccessTokenRevoked → revoke the repository tokens it was shown: whoever held the account
 * token may have kept their values, so they must not outlive it.
 */
export const accessTokenRevokedReaction = (events: EventStore, readModels: ReadModelStore): Reaction => ({
  contexts: ['token'],
  async handle(message: BusMessage) {
    const event = decodeEvent(message, { AccessTokenRevoked });
    if (!event) return;
    const { tokenId, revokedAt } = event.data;
    const metadata = { causationId: message.id };
    for (const reveal of await readModels.collection<RepoTokenRevealDocument>(REPO_TOKEN_REVEALS).find({ accessTokenId: tokenId })) {
      await handleCommand(events, repoTokenStream(reveal.repoTokenId), repoTokenDecider, { type: 'RevokeRepoToken', tokenId: reveal.repoTokenId, now: revokedAt }, { isIntegration, metadata });
    }
  },
});
