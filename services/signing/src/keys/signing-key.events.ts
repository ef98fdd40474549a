import type { DomainEvent } from '@packyard/platform';
import type { SigningKeyCreated as SigningKeyCreatedData } from '@packyard/proto/packyard/signing/v1/events';

export type SigningKeyCreated = DomainEvent<'SigningKeyCreated', SigningKeyCreatedData>;
/** the repository is gone: its key is destroyed (the sealed private key is forgotten by readers) */
export type SigningKeyDestroyed = DomainEvent<'SigningKeyDestroyed', { repositoryId: string; destroyedAt: string }>;

export type SigningKeyEvent = SigningKeyCreated | SigningKeyDestroyed;

/** one stream per repository key */
export const signingKeyStream = (repositoryId: string) => `signing_key-${repositoryId}`;
