import { recordInbox, type BusMessage, type EventStore, type Reaction } from '@packyard/platform';

/** delivery's FilesServed goes into the inbox; the tokens projection turns it into last-used times and use counts */
export const filesServedReaction = (events: EventStore): Reaction => ({
  contexts: ['delivery'],
  async handle(message: BusMessage) {
    if (message.type === 'FilesServed') await recordInbox(events, 'delivery', message);
  },
});
