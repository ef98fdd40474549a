import { handleCommand, PackyardError, type EventSourcing } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import { packageDecider } from '../packages/package.decider';
import { isPackageIntegrationEvent } from '../packages/package.events';
import { PACKAGES, type PackageDocument } from '../projections/packages.projection';
import { RETENTION_POLICIES, type RetentionPolicyDocument } from '../projections/retention-policies.projection';
import { blobKeysOf, releaseBlobsIfUnused } from '../uploads/blob-references';
import { retentionPlan } from './retention-plan';

export const NO_RETENTION = { keepVersions: 0, keepDownloadedDays: 0 };

export async function retentionPolicyOf(es: EventSourcing, repositoryId: string) {
  const doc = await es.readModels.collection<RetentionPolicyDocument>(RETENTION_POLICIES).get(repositoryId);
  return doc ? { keepVersions: doc.keepVersions, keepDownloadedDays: doc.keepDownloadedDays } : NO_RETENTION;
}

/**
 * What the repository's policy lets go now; unless `dryRun`, each is deleted (PackageDeleted,
 * reason "retention") and its bytes freed when no other package names them.
 */
export async function applyRetention(
  es: EventSourcing,
  blobs: BlobStore,
  repositoryId: string,
  { dryRun, now, metadata }: { dryRun: boolean; now: Date; metadata: Record<string, unknown> },
): Promise<PackageDocument[]> {
  const policy = await retentionPolicyOf(es, repositoryId);
  if (!policy.keepVersions) return [];
  const packages = es.readModels.collection<PackageDocument>(PACKAGES);
  const goes = retentionPlan(await packages.find({ repositoryId }), policy, now);
  if (dryRun || !goes.length) return goes;
  const deleted: PackageDocument[] = [];
  let lastPosition = 0;
  for (const doc of goes) {
    try {
      const result = await handleCommand(es.events, doc.stream, packageDecider, { type: 'DeletePackage', packageId: doc.id, reason: 'retention', now: now.toISOString() }, {
        isIntegration: isPackageIntegrationEvent,
        metadata,
      });
      lastPosition = result.lastPosition;
      deleted.push(doc);
    } catch (error) {
      // deleted meanwhile (by a user, or a concurrent run)
      if (!(error instanceof PackyardError && error.kind === 'NOT_FOUND')) throw error;
    }
  }
  if (lastPosition) await es.caughtUp(lastPosition);
  await releaseBlobsIfUnused(es.readModels, blobs, deleted.flatMap(blobKeysOf));
  return deleted;
}
