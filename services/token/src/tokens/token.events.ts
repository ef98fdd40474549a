import type { DomainEvent } from '@packyard/platform';
import type {
  AccessTokenCreated as AccessTokenCreatedData,
  AccessTokenRevoked as AccessTokenRevokedData,
  RepoTokenCreated as RepoTokenCreatedData,
  RepoTokenRevoked as RepoTokenRevokedData,
} from '@packyard/proto/packyard/token/v1/events';

export type RepoTokenCreated = DomainEvent<'RepoTokenCreated', RepoTokenCreatedData>;
export type RepoTokenRevoked = DomainEvent<'RepoTokenRevoked', RepoTokenRevokedData>;
export type RepoTokenEvent = RepoTokenCreated | RepoTokenRevoked;

export type AccessTokenCreated = DomainEvent<'AccessTokenCreated', AccessTokenCreatedData>;
export type AccessTokenRevoked = DomainEvent<'AccessTokenRevoked', AccessTokenRevokedData>;
export type AccessTokenEvent = AccessTokenCreated | AccessTokenRevoked;

export const repoTokenStream = (tokenId: string) => `repo_token-${tokenId}`;
export const accessTokenStream = (tokenId: string) => `access_token-${tokenId}`;

/** every token event is an integration event (delivery and the audit trail follow them) */
export const isIntegration = () => true;
