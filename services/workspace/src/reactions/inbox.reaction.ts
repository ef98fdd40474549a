import { recordInbox, type BusMessage, type EventStore, type Reaction } from '@packyard/platform';

/** the other modules' events the workspaces projection counts */
const COUNTED: Record<string, string[]> = {
  repository: ['RepositoryCreated', 'RepositoryDeleted'],
  artifact: ['PackageUploaded', 'PackageDeleted'],
  // every byte the apt/yum edge sends, metadata included, is egress
  delivery: ['FilesServed'],
};

/** one reaction per context, so each inbox entry records where it came from */
export const inboxReactions = (events: EventStore): Reaction[] =>
  Object.entries(COUNTED).map(([context, types]) => ({
    contexts: [context],
    async handle(message: BusMessage) {
      if (types.includes(message.type)) await recordInbox(events, context, message);
    },
  }));
