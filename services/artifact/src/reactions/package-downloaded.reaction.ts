import { inboxReaction, type EventStore, type Reaction } from '@packyard/platform';

/**
 * Delivery's PackageDownloaded events go into artifact's inbox, where the packages
 * projection adds them to `downloads` (exactly once per event id).
 */
export const packageDownloadedReaction = (events: EventStore): Reaction => inboxReaction(events, 'delivery', new Set(['PackageDownloaded']), ['artifact', 'delivery']);
