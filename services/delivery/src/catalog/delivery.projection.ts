import { formatDistribution } from '@packyard/formats/distributions';
import { IndexPublished, PackageDeleted, PackageUploaded } from '@packyard/formats/recorded-distributions';
import { decodeEvent } from '@packyard/platform/eventsourcing/decode-event';
import type { RecordedEvent } from '@packyard/platform/eventsourcing/event-store.port';
import { isInboxEvent } from '@packyard/platform/eventsourcing/inbox';
import type { Projection } from '@packyard/platform/readmodels/projection-runner';
import { RepositoryCreated, RepositoryDeleted, RepositoryPurged, RepositoryRestored } from '@packyard/proto/packyard/repository/v1/events';
import { PublicKeysChanged } from '@packyard/proto/packyard/signing/v1/events';
import type { PublicationRecord, RepositoryRecord } from './served-file';

export const REPOSITORIES = 'delivery_repositories';
export const PUBLICATIONS = 'delivery_publications';
export const PACKAGES = 'delivery_packages';
export const PUBLIC_KEYS = 'delivery_public_keys';

/** which package a stored file is, so downloads can be counted against it */
export interface PackageRecord {
  /** `<repositoryId>|<sha256>` */
  id: string;
  repositoryId: string;
  packageId: string;
}

/** the public keys a repository serves (gpg.key, keyring.gpg), as signing announced them */
export interface PublicKeysRecord {
  /** the repository id */
  id: string;
  /** every key it has had, armored, newest first */
  armored: string[];
}

const TOMBSTONE: RepositoryRecord = { id: '', kind: 'DEB', workspaceId: '', workspaceSlug: '', name: '', ownerId: '', codename: '', component: '' };

/** the events delivery's read model is projected from, by the context whose inbox they arrive in */
export const FOLLOWED_EVENTS = {
  repository: { RepositoryCreated, RepositoryDeleted, RepositoryRestored, RepositoryPurged, IndexPublished },
  artifact: { PackageUploaded, PackageDeleted },
  // a reaction's consumer group is named by its place in this list (the token context's follows, see the module)
  signing: { PublicKeysChanged },
};

export const packageRecordId = (repositoryId: string, sha256: string) => `${repositoryId}|${sha256}`;

/** what a projected event changed, for the in-memory state to follow */
export type CatalogChange = { kind: 'repository' | 'keys'; repositoryId: string } | { kind: 'package'; record: PackageRecord; deleted: boolean };

/**
 * Delivery's read model, projected from the repository and artifact events its reactions
 * put in its inbox: the repositories (for URLs and token checks), the published
 * generations of every distribution (the newest and the ones it retains, each naming
 * its manifest in the blob store), which package each stored file is, and (from signing's
 * events) each repository's public keys. `onChange` lets the running edge follow; a rebuild
 * (`packyard rebuild-projections --target=delivery`) runs without it.
 */
export function deliveryProjection(onChange: (change: CatalogChange) => Promise<void> | void = () => {}): Projection {
  return {
    name: 'delivery-catalog',
    collections: [REPOSITORIES, PUBLICATIONS, PACKAGES, PUBLIC_KEYS],
    // the edge loads a repository by its path, then its publications, at its first request after a start
    indexes: { [REPOSITORIES]: ['name'], [PUBLICATIONS]: ['repositoryId'], [PACKAGES]: ['repositoryId'] },
    async handle(recorded: RecordedEvent, readModels) {
      const event = isInboxEvent(recorded.stream, 'repository')
        ? decodeEvent(recorded, FOLLOWED_EVENTS.repository)
        : isInboxEvent(recorded.stream, 'artifact')
          ? decodeEvent(recorded, FOLLOWED_EVENTS.artifact)
          : isInboxEvent(recorded.stream, 'signing')
            ? decodeEvent(recorded, FOLLOWED_EVENTS.signing)
            : undefined;
      if (!event) return;
      const repositories = readModels.collection<RepositoryRecord>(REPOSITORIES);
      const publications = readModels.collection<PublicationRecord>(PUBLICATIONS);
      const packages = readModels.collection<PackageRecord>(PACKAGES);
      const publicKeys = readModels.collection<PublicKeysRecord>(PUBLIC_KEYS);
      switch (event.type) {
        case 'RepositoryCreated': {
          const { data } = event;
          // a deletion read before the creation (another partition) keeps it hidden
          const known = await repositories.get(data.repositoryId);
          await repositories.upsert({
            ...(known && { deleted: known.deleted, purged: known.purged }),
            id: data.repositoryId,
            kind: data.kind === 'RPM' ? 'RPM' : 'DEB',
            workspaceId: data.workspaceId,
            workspaceSlug: data.workspaceSlug,
            name: data.name,
            ownerId: data.ownerId,
            codename: data.codename,
            component: data.component,
          });
          return onChange({ kind: 'repository', repositoryId: data.repositoryId });
        }
        case 'RepositoryDeleted':
        case 'RepositoryRestored': {
          // hidden during the grace period, served again as it was after a restoration
          const { repositoryId } = event.data;
          const known = await repositories.get(repositoryId);
          if (known?.purged) return;
          // not known yet (its RepositoryCreated is on another partition): IndexPublished fills it in
          await repositories.upsert({ ...TOMBSTONE, ...known, id: repositoryId, deleted: event.type === 'RepositoryDeleted' });
          return onChange({ kind: 'repository', repositoryId });
        }
        case 'RepositoryPurged': {
          const { repositoryId } = event.data;
          // a tombstone: a publication finishing after the purge must not bring it back
          await repositories.upsert({ ...TOMBSTONE, ...(await repositories.get(repositoryId)), id: repositoryId, deleted: true, purged: true });
          await publications.deleteMany({ repositoryId });
          await packages.deleteMany({ repositoryId });
          await publicKeys.delete(repositoryId);
          return onChange({ kind: 'repository', repositoryId });
        }
        case 'IndexPublished': {
          const { data } = event;
          if (!data.manifest) return;
          const known = await repositories.get(data.repositoryId);
          if (known?.purged) return;
          if (!known?.workspaceSlug) {
            await repositories.upsert({
              ...known,
              id: data.repositoryId,
              kind: data.kind === 'RPM' ? 'RPM' : 'DEB',
              workspaceId: data.workspaceId,
              workspaceSlug: data.workspaceSlug,
              name: data.repositoryName,
              ownerId: data.ownerId,
              codename: '',
              component: '',
            });
          }
          // records keep the target as `distro/version` too, the key they were stored under before the message
          const distribution = formatDistribution(data.targetDistribution);
          const existing = await publications.find({ repositoryId: data.repositoryId, distribution });
          await publications.upsert({
            id: `${data.repositoryId}|${distribution}|${data.generation}`,
            repositoryId: data.repositoryId,
            distribution,
            distro: data.targetDistribution.distro,
            version: data.targetDistribution.version,
            generation: data.generation,
            publishedAt: data.publishedAt,
            retainedGenerations: data.retainedGenerations,
            manifest: data.manifest,
            packageCount: data.packageCount,
          });
          const kept = new Set([data.generation, ...data.retainedGenerations]);
          for (const old of existing) {
            if (old.generation < data.generation && !kept.has(old.generation)) await publications.delete(old.id);
          }
          return onChange({ kind: 'repository', repositoryId: data.repositoryId });
        }
        case 'PackageUploaded': {
          const { data } = event;
          const record = { id: packageRecordId(data.repositoryId, data.sha256), repositoryId: data.repositoryId, packageId: data.packageId };
          await packages.upsert(record);
          return onChange({ kind: 'package', record, deleted: false });
        }
        case 'PackageDeleted': {
          const { data } = event;
          const found = await packages.find({ repositoryId: data.repositoryId, packageId: data.packageId });
          for (const record of found) {
            await packages.delete(record.id);
            await onChange({ kind: 'package', record, deleted: true });
          }
          return;
        }
        case 'PublicKeysChanged': {
          const { repositoryId, publicKeysArmored } = event.data;
          // a purged repository's keys are destroyed; a late announcement must not bring them back
          if ((await repositories.get(repositoryId))?.purged) return;
          await publicKeys.upsert({ id: repositoryId, armored: publicKeysArmored });
          return onChange({ kind: 'keys', repositoryId });
        }
      }
    },
  };
}
