import { decodeEvent, handleCommand, PackyardError, type BusMessage, type EventSourcing, type Reaction } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import { RepositoryPurged } from '@packyard/proto/packyard/repository/v1/events';
import { packageDecider } from '../packages/package.decider';
import { isPackageIntegrationEvent } from '../packages/package.events';
import { PACKAGES, type PackageDocument } from '../projections/packages.projection';
import { blobKeysOf, releaseBlobsIfUnused } from '../uploads/blob-references';

/**
 * RepositoryPurged (a deleted repository's grace period is over; until then its packages are
 * kept for a restoration) → every package of it is deleted (PackageDeleted, reason repository-deleted)
 * and its bytes freed unless a copy in another repository still names them: a blob under this
 * repository's prefix may be a promoted package's, and a copy here may name another's blob.
 */
/** `running()` is the module's event sourcing, which starts this reaction and so exists only after it */
export const repositoryPurgedReaction = (running: () => EventSourcing, blobs: BlobStore): Reaction => ({
  contexts: ['repository'],
  async handle(message: BusMessage) {
    const event = decodeEvent(message, { RepositoryPurged });
    if (!event) return;
    const { repositoryId, purgedAt } = event.data;
    const es = running();
    const packages = es.readModels.collection<PackageDocument>(PACKAGES);
    let lastPosition = 0;
    const docs = await packages.find({ repositoryId });
    for (const doc of docs) {
      try {
        const result = await handleCommand(es.events, doc.stream, packageDecider, { type: 'DeletePackage', packageId: doc.id, reason: 'repository-deleted', now: purgedAt }, {
          isIntegration: isPackageIntegrationEvent,
          metadata: { causationId: message.id },
        });
        lastPosition = result.lastPosition;
      } catch (error) {
        // deleted meanwhile (a redelivery, or the user was faster)
        if (!(error instanceof PackyardError && error.kind === 'NOT_FOUND')) throw error;
      }
    }
    if (lastPosition) await es.caughtUp(lastPosition, 60_000);
    const keys = docs.flatMap(blobKeysOf);
    for await (const key of blobs.list(`packages/${repositoryId}/`)) keys.push(key);
    await releaseBlobsIfUnused(es.readModels, blobs, keys);
  },
});
