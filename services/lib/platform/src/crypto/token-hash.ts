import { createHash } from 'node:crypto';
import { AccessTokenCreated, AccessTokenRevoked, RepoTokenCreated, RepoTokenRevoked } from '@packyard/proto/packyard/token/v1/events';
import type { DecodedEvent } from '../eventsourcing/decode-event';
import type { Collection } from '../readmodels/read-model.port';

/**
 * What a token value is looked up by, wherever it is checked (the token module, and the edge
 * against its own copy of the hashes): a fast hash is enough, the values carry 256 random
 * bits, nothing to brute-force.
 */
export const hashTokenValue = (value: string) => createHash('sha256').update(value).digest('hex');

/** a token as a check needs it, keyed by the SHA-256 of its value */
export interface TokenHashDocument {
  id: string;
  kind: 'repo_token' | 'access_token';
  tokenId: string;
  ownerId: string;
  /** the repository the token is limited to; empty: all of its owner's repositories */
  repositoryId: string;
  scopes: string[];
}

/** the token events a copy of the token hashes follows */
export const TOKEN_HASH_EVENTS = { RepoTokenCreated, AccessTokenCreated, RepoTokenRevoked, AccessTokenRevoked };

/**
 * One token event into a copy of the token hashes (the token module's, the edge's); the
 * id of the token it revoked, if it did.
 */
export async function projectTokenHash(event: DecodedEvent<typeof TOKEN_HASH_EVENTS>, hashes: Collection<TokenHashDocument>): Promise<string | undefined> {
  switch (event.type) {
    case 'RepoTokenCreated': {
      const { valueHash, tokenId, ownerId, repositoryId } = event.data;
      await hashes.upsert({ id: valueHash, kind: 'repo_token', tokenId, ownerId, repositoryId, scopes: ['read'] });
      return undefined;
    }
    case 'AccessTokenCreated': {
      const { valueHash, tokenId, ownerId, repositoryId, scopes } = event.data;
      await hashes.upsert({ id: valueHash, kind: 'access_token', tokenId, ownerId, repositoryId, scopes });
      return undefined;
    }
    case 'RepoTokenRevoked':
    case 'AccessTokenRevoked':
      await hashes.deleteMany({ tokenId: event.data.tokenId });
      return event.data.tokenId;
  }
}
