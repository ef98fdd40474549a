import { inboxReaction, type EventStore, type Reaction } from '@packyard/platform';

/** delivery's FilesServed goes into the inbox; the tokens projection turns it into last-used times and use counts */
export const filesServedReaction = (events: EventStore): Reaction => inboxReaction(events, 'delivery', new Set(['FilesServed']));
