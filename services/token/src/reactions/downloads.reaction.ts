import { recordInbox, type BusMessage, type EventStore, type Reaction } from '@packyard/platform';

/** PackageDownloaded (from artifact or delivery) goes into the inbox; the tokens projection turns it into last-used and use counts */
export const downloadsReactions = (events: EventStore): Reaction[] =>
  ['artifact', 'delivery'].map((context) => ({
    contexts: [context],
    async handle(message: BusMessage) {
      if (message.type === 'PackageDownloaded') await recordInbox(events, context, message);
    },
  }));
