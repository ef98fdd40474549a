import { inboxReaction, type EventStore, type Reaction } from '@packyard/platform';

/** the other modules' events the workspace module's projections read: usage counts and the audit log */
const RECORDED: Record<string, string[]> = {
  repository: ['RepositoryCreated', 'RepositoryDeleted', 'RepositoryRestored', 'RepositoryPurged'],
  artifact: ['PackageUploaded', 'PackageDeleted', 'PackageCopied', 'PackagePromoted'],
  // every byte the apt/yum edge sends, metadata included, is egress
  delivery: ['FilesServed'],
  token: ['RepoTokenCreated', 'RepoTokenRevoked', 'AccessTokenCreated', 'AccessTokenRevoked'],
  // the audit log names users by email
  identity: ['UserRegistered'],
};

/** one reaction per context, so each inbox entry records where it came from */
export const inboxReactions = (events: EventStore): Reaction[] => Object.entries(RECORDED).map(([context, types]) => inboxReaction(events, context, new Set(types)));
