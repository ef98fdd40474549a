import { inboxReaction, type EventStore, type Reaction } from '@packyard/platform';

/** artifact's PackageUploaded/PackageDeleted go into the inbox, where the repositories projection counts them */
export const artifactEventsReaction = (events: EventStore): Reaction => inboxReaction(events, 'artifact', new Set(['PackageUploaded', 'PackageDeleted']));

/** signing's SigningKeysChanged goes into the inbox, where the publisher signs the repository's indices again */
export const signingEventsReaction = (events: EventStore): Reaction => inboxReaction(events, 'signing', new Set(['SigningKeysChanged']));
