import { recordInbox, type BusMessage, type EventStore, type Reaction } from '@packyard/platform';

const KEPT = new Set(['PackageUploaded', 'PackageDeleted']);

/** artifact's PackageUploaded/PackageDeleted go into the inbox, where the repositories projection counts them */
export const artifactEventsReaction = (events: EventStore): Reaction => ({
  contexts: ['artifact'],
  async handle(message: BusMessage) {
    if (KEPT.has(message.type)) await recordInbox(events, 'artifact', message);
  },
});

/** signing's SigningKeysChanged goes into the inbox, where the publisher signs the repository's indices again */
export const signingEventsReaction = (events: EventStore): Reaction => ({
  contexts: ['signing'],
  async handle(message: BusMessage) {
    if (message.type === 'SigningKeysChanged') await recordInbox(events, 'signing', message);
  },
});
