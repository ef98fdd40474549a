import type { DomainEvent, RecordedEvent } from '@packyard/platform';
import { RepoTokenCreated as RepoTokenCreatedMessage } from '@packyard/proto/packyard/token/v1/events';
import type {
  AccessTokenCreated as AccessTokenCreatedData,
  AccessTokenRevoked as AccessTokenRevokedData,
  AccessTokenUsed as AccessTokenUsedData,
  RepoTokenCreated as RepoTokenCreatedData,
  RepoTokenRevealed as RepoTokenRevealedData,
  RepoTokenRevoked as RepoTokenRevokedData,
} from '@packyard/proto/packyard/token/v1/events';

export type RepoTokenCreated = DomainEvent<'RepoTokenCreated', RepoTokenCreatedData>;
export type RepoTokenRevoked = DomainEvent<'RepoTokenRevoked', RepoTokenRevokedData>;
export type RepoTokenRevealed = DomainEvent<'RepoTokenRevealed', RepoTokenRevealedData>;
export type RepoTokenEvent = RepoTokenCreated | RepoTokenRevoked | RepoTokenRevealed;

export type AccessTokenCreated = DomainEvent<'AccessTokenCreated', AccessTokenCreatedData>;
export type AccessTokenRevoked = DomainEvent<'AccessTokenRevoked', AccessTokenRevokedData>;
export type AccessTokenUsed = DomainEvent<'AccessTokenUsed', AccessTokenUsedData>;
export type AccessTokenEvent = AccessTokenCreated | AccessTokenRevoked | AccessTokenUsed;

export const repoTokenStream = (tokenId: string) => `repo_token-${tokenId}`;
export const accessTokenStream = (tokenId: string) => `access_token-${tokenId}`;

/** creations and revocations are integration events; a token's use and reveals stay in this module */
export const isIntegration = (event: { type: string }) => event.type !== 'AccessTokenUsed' && event.type !== 'RepoTokenRevealed';

/**
 * What other modules receive of a token event: a repository token's creation without its
 * sealed value, which only this module opens (to reveal the token to its owner). The edge
 * needs the value's hash, the audit log the name; a copy of the sealed value in their logs
 * (and on the bus, kept for its retention) would be one more place a master key's leak opens.
 */
export function integrationData(event: RecordedEvent): unknown {
  if (event.type !== 'RepoTokenCreated') return event.data;
  return RepoTokenCreatedMessage.toJSON({ ...RepoTokenCreatedMessage.fromJSON(event.data), sealedValue: '' });
}
