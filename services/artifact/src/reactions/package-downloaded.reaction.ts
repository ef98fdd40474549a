import { recordInbox, type BusMessage, type EventStore, type Reaction } from '@packyard/platform';

/**
 * Delivery's PackageDownloaded events go into artifact's inbox, where the packages
 * projection adds them to `downloads` (exactly once per event id).
 */
export const packageDownloadedReaction = (events: EventStore): Reaction => ({
  contexts: ['artifact', 'delivery'],
  async handle(message: BusMessage) {
    if (message.type === 'PackageDownloaded') await recordInbox(events, 'delivery', message);
  },
});
