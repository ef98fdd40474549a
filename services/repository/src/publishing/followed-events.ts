import { decodeEvent, isInboxEvent, type DecodedEvent, type RecordedEvent } from '@packyard/platform';
import { PackageDeleted, PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';
import { RepositoryCreated, RepositoryDeleted } from '@packyard/proto/packyard/repository/v1/events';
import { SigningKeysChanged } from '@packyard/proto/packyard/signing/v1/events';

const FROM_ARTIFACT = { PackageUploaded, PackageDeleted };
const FROM_SIGNING = { SigningKeysChanged };
const OWN = { RepositoryCreated, RepositoryDeleted };

/** The events of the repository module's log that its projections and publishing act on, decoded by their proto messages (artifact's and signing's from the inbox). */
export type FollowedEvent = DecodedEvent<typeof FROM_ARTIFACT> | DecodedEvent<typeof FROM_SIGNING> | DecodedEvent<typeof OWN>;

/** the event decoded, or undefined when the module ignores it */
export function followedEvent(event: RecordedEvent): FollowedEvent | undefined {
  if (isInboxEvent(event.stream, 'artifact')) return decodeEvent(event, FROM_ARTIFACT);
  if (isInboxEvent(event.stream, 'signing')) return decodeEvent(event, FROM_SIGNING);
  return isInboxEvent(event.stream) ? undefined : decodeEvent(event, OWN);
}
