import type { DomainEvent } from '@packyard/platform';
import type {
  PublicKeysChanged as PublicKeysChangedData,
  SigningKeyCreated as SigningKeyCreatedData,
  SigningKeyRolled as SigningKeyRolledData,
  SigningKeysChanged as SigningKeysChangedData,
} from '@packyard/proto/packyard/signing/v1/events';

export type SigningKeyCreated = DomainEvent<'SigningKeyCreated', SigningKeyCreatedData>;
/** a new current key; the one it replaces keeps signing until overlapUntil */
export type SigningKeyRolled = DomainEvent<'SigningKeyRolled', SigningKeyRolledData>;
/** the overlap is over: the previous key signs nothing any more (it stays served, for packages it signed) */
export type SigningKeyRetired = DomainEvent<'SigningKeyRetired', { repositoryId: string; fingerprint: string; retiredAt: string }>;
/** integration: the set of keys signing the repository's metadata changed */
export type SigningKeysChanged = DomainEvent<'SigningKeysChanged', SigningKeysChangedData>;
/** integration: the public keys the repository serves changed (every key it has had, newest first) */
export type PublicKeysChanged = DomainEvent<'PublicKeysChanged', PublicKeysChangedData>;
/** the repository is gone: its key is destroyed (the sealed private key is forgotten by readers) */
export type SigningKeyDestroyed = DomainEvent<'SigningKeyDestroyed', { repositoryId: string; destroyedAt: string }>;

export type SigningKeyEvent = SigningKeyCreated | SigningKeyRolled | SigningKeyRetired | SigningKeysChanged | PublicKeysChanged | SigningKeyDestroyed;

export const isSigningKeyIntegrationEvent = (event: { type: string }) => event.type === 'SigningKeysChanged' || event.type === 'PublicKeysChanged';

/** one stream per repository's keys */
export const signingKeyStream = (repositoryId: string) => `signing_key-${repositoryId}`;
