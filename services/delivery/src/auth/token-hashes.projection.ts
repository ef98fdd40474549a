import { projectTokenHash, TOKEN_HASH_EVENTS, type TokenHashDocument } from '@packyard/platform/crypto/token-hash';
import { decodeEvent } from '@packyard/platform/eventsourcing/decode-event';
import type { RecordedEvent } from '@packyard/platform/eventsourcing/event-store.port';
import { isInboxEvent } from '@packyard/platform/eventsourcing/inbox';
import type { Projection } from '@packyard/platform/readmodels/projection-runner';
import type { TokenVerdict } from './token-verdicts';

export const TOKEN_HASHES = 'delivery_token_hashes';

export const verdictOf = ({ kind, tokenId, ownerId, repositoryId, scopes }: TokenHashDocument): TokenVerdict => ({ valid: true, kind, tokenId, ownerId, repositoryId, scopes });

/**
 * The edge's own copy of the token hashes, from the token events in delivery's inbox, so it
 * checks a token without asking the token module: the first request of a client after a
 * start waits for no call, and apt and dnf are served while the token module restarts.
 * Revocations reach the edge's verdicts through `revoked`, after the hash is gone from here,
 * so what the edge holds in memory is never ahead of this copy: after a restart, a token
 * whose revocation was not projected yet is where it was before, and is refused once it is.
 */
export function tokenHashesProjection(revoked: (tokenId: string) => Promise<void> | void = () => {}): Projection {
  return {
    name: 'delivery-token-hashes',
    collections: [TOKEN_HASHES],
    indexes: { [TOKEN_HASHES]: ['tokenId'] },
    async handle(recorded: RecordedEvent, readModels) {
      const event = isInboxEvent(recorded.stream, 'token') ? decodeEvent(recorded, TOKEN_HASH_EVENTS) : undefined;
      if (!event) return;
      const revokedId = await projectTokenHash(event, readModels.collection<TokenHashDocument>(TOKEN_HASHES));
      if (revokedId) await revoked(revokedId);
    },
  };
}
