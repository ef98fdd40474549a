import { decodeEvent, isInboxEvent, type DecodedEvent, type RecordedEvent } from '@packyard/platform';
import { AdvisoryCreated, PackageDeleted, PackageUploaded } from '@packyard/formats/recorded-distributions';
import { AdvisoryDeleted } from '@packyard/proto/packyard/repository/v1/advisories';
import { RepositoryCreated, RepositoryDeleted, RepositoryPurged, RepositoryRestored } from '@packyard/proto/packyard/repository/v1/events';
import { SigningKeysChanged } from '@packyard/proto/packyard/signing/v1/events';
import { wasPurgedAtOnce } from '../repositories/repository.events';

const FROM_ARTIFACT = { PackageUploaded, PackageDeleted };
const FROM_SIGNING = { SigningKeysChanged };
const OWN = { RepositoryCreated, RepositoryDeleted, RepositoryRestored, RepositoryPurged, AdvisoryCreated, AdvisoryDeleted };

/** The events of the repository module's log that its projections and publishing act on, decoded by their proto messages (artifact's and signing's from the inbox). */
export type FollowedEvent = DecodedEvent<typeof FROM_ARTIFACT> | DecodedEvent<typeof FROM_SIGNING> | DecodedEvent<typeof OWN>;

/** the event decoded, or undefined when the module ignores it */
export function followedEvent(event: RecordedEvent): FollowedEvent | undefined {
  if (isInboxEvent(event.stream, 'artifact')) return decodeEvent(event, FROM_ARTIFACT);
  if (isInboxEvent(event.stream, 'signing')) return decodeEvent(event, FROM_SIGNING);
  return isInboxEvent(event.stream) ? undefined : decodeEvent(event, OWN);
}

/**
 * The repository whose packages, advisories and published indices go for good with this
 * event: RepositoryPurged after the grace period, or a deletion recorded before
 * repositories could be restored (it was final).
 */
export function purgedRepositoryId(event: FollowedEvent | undefined): string | undefined {
  if (event?.type === 'RepositoryPurged') return event.data.repositoryId;
  if (event?.type === 'RepositoryDeleted' && wasPurgedAtOnce(event.data)) return event.data.repositoryId;
  return undefined;
}
