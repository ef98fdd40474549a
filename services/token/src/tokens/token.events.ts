import type { DomainEvent } from '@packyard/platform';
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
