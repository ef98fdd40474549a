import { isInboxEvent, type RecordedEvent } from '@packyard/platform';
import { PackageDeleted, PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';
import { RepositoryCreated, RepositoryDeleted } from '@packyard/proto/packyard/repository/v1/events';
import { SigningKeysChanged } from '@packyard/proto/packyard/signing/v1/events';

/** The events of the repository module's log that publishing acts on, decoded by their proto messages. */
export type FollowedEvent =
  | { type: 'PackageUploaded'; data: PackageUploaded }
  | { type: 'PackageDeleted'; data: PackageDeleted }
  | { type: 'SigningKeysChanged'; data: SigningKeysChanged }
  | { type: 'RepositoryCreated'; data: RepositoryCreated }
  | { type: 'RepositoryDeleted'; data: RepositoryDeleted };

/** the event as publishing reads it, or undefined when publishing ignores it (another module's type, or a type of no interest) */
export function followedEvent(event: RecordedEvent): FollowedEvent | undefined {
  if (isInboxEvent(event.stream, 'artifact')) {
    if (event.type === 'PackageUploaded') return { type: event.type, data: PackageUploaded.fromJSON(event.data) };
    if (event.type === 'PackageDeleted') return { type: event.type, data: PackageDeleted.fromJSON(event.data) };
    return undefined;
  }
  if (isInboxEvent(event.stream, 'signing')) return event.type === 'SigningKeysChanged' ? { type: event.type, data: SigningKeysChanged.fromJSON(event.data) } : undefined;
  if (event.type === 'RepositoryCreated') return { type: event.type, data: RepositoryCreated.fromJSON(event.data) };
  if (event.type === 'RepositoryDeleted') return { type: event.type, data: RepositoryDeleted.fromJSON(event.data) };
  return undefined;
}
