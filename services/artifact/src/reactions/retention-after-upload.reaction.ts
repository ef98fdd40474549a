import { PackageUploaded } from '@packyard/formats/recorded-distributions';
import { decodeEvent, serviceCaller, type BusMessage, type EventSourcing, type Reaction } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import { applyRetention } from '../retention/apply-retention';

/**
 * PackageUploaded (an upload, a copy or a promotion) → the repository's retention policy
 * runs, so "keep the last N" holds after every publish without anyone asking.
 */
export const retentionAfterUploadReaction = (running: () => EventSourcing, blobs: BlobStore): Reaction => ({
  contexts: ['artifact'],
  async handle(message: BusMessage) {
    const event = decodeEvent(message, { PackageUploaded });
    if (!event) return;
    const { repositoryId } = event.data;
    await applyRetention(running(), blobs, repositoryId, { dryRun: false, now: new Date(), metadata: { causationId: message.id, caller: serviceCaller('artifact') } });
  },
});
