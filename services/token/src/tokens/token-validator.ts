import { hashTokenValue, isInboxEvent, type Collection, type EventStore, type Subscription, type TokenHashDocument } from '@packyard/platform';
import type { ValidateTokenResponse } from '@packyard/proto/packyard/token/v1/token';

const INVALID: ValidateTokenResponse = { valid: false, kind: '', tokenId: '', ownerId: '', scopes: [], repositoryId: '' };
const MAX_CACHED = 50_000;
/** an account token's "last used" is recorded at most this often, off the hot path */
export const USE_RECORDING_INTERVAL_MS = 60_000;
const REVOCATIONS = new Set(['RepoTokenRevoked', 'AccessTokenRevoked']);

/**
 * Validates token values for the API and delivery (on every apt/dnf request), so the
 * answer for a known token comes from memory. Revocation is honoured at once in this
 * process (the handler evicts) and by every other replica as soon as it reads the
 * revocation from the log. Unknown values are not cached: a token created a moment
 * ago must work on its first use.
 */
export function createTokenValidator(hashes: Collection<TokenHashDocument>, recordAccessTokenUse: (tokenId: string) => Promise<void>) {
  const cache = new Map<string, TokenHashDocument>();
  const hashesOf = new Map<string, string>();
  const lastRecordedUse = new Map<string, number>();
  /** deleted repositories in their grace period: their tokens are refused until a restoration */
  const suspended = new Set<string>();

  const noteUse = (entry: TokenHashDocument) => {
    // repository tokens' uses come from what delivery served (FilesServed)
    if (entry.kind !== 'access_token') return;
    const now = Date.now();
    if (now - (lastRecordedUse.get(entry.tokenId) ?? 0) < USE_RECORDING_INTERVAL_MS) return;
    lastRecordedUse.set(entry.tokenId, now);
    recordAccessTokenUse(entry.tokenId).catch(() => lastRecordedUse.delete(entry.tokenId));
  };

  const evict = (tokenId: string) => {
    const hash = hashesOf.get(tokenId);
    if (hash) cache.delete(hash);
    hashesOf.delete(tokenId);
    lastRecordedUse.delete(tokenId);
  };

  return {
    evict,

    async validate(token: string, repositoryId: string): Promise<ValidateTokenResponse> {
      if (!token) return INVALID;
      const hash = hashTokenValue(token);
      let entry = cache.get(hash);
      if (!entry) {
        entry = await hashes.get(hash);
        if (!entry) return INVALID;
        if (cache.size >= MAX_CACHED) evict(cache.values().next().value!.tokenId);
        cache.set(hash, entry);
        hashesOf.set(entry.tokenId, hash);
      }
      // a token limited to a repository opens only that one
      if (repositoryId && entry.repositoryId && entry.repositoryId !== repositoryId) return INVALID;
      if (suspended.has(entry.repositoryId) || suspended.has(repositoryId)) return INVALID;
      noteUse(entry);
      return { valid: true, kind: entry.kind, tokenId: entry.tokenId, ownerId: entry.ownerId, scopes: entry.scopes, repositoryId: entry.repositoryId };
    },

    /**
     * Follows the log from now on: evicts every revoked token (revocations by other replicas)
     * and keeps the suspended repositories, loaded once the projection holds every event
     * up to where following starts.
     */
    async followLog(events: EventStore, suspendedRepositories: Collection<{ id: string }>, caughtUp: (position: number) => Promise<void>): Promise<Subscription> {
      const from = await events.lastPosition();
      await caughtUp(from);
      for (const { id } of await suspendedRepositories.find({})) suspended.add(id);
      return events.subscribe(from, async (event) => {
        if (REVOCATIONS.has(event.type)) evict((event.data as { tokenId: string }).tokenId);
        if (!isInboxEvent(event.stream, 'repository')) return;
        const { repositoryId } = event.data as { repositoryId: string };
        if (event.type === 'RepositoryDeleted') suspended.add(repositoryId);
        else suspended.delete(repositoryId);
      });
    },
  };
}

export type TokenValidator = ReturnType<typeof createTokenValidator>;
