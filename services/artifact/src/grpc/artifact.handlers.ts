import type { ServiceImplementation } from 'nice-grpc';
import { PackageUploaded } from '@packyard/formats/recorded-distributions';
import { decodeEvent, handleCommand, invalid, isServiceCaller, notFound, type CallerContext, type EventSourcing, type PackyardClient } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import type { ArtifactServiceDefinition } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { bucketKeys, DOWNLOAD_BUCKETS, type DownloadBucketDocument, type DownloadPeriod, BUCKETS_KEPT } from '../downloads/download-buckets';
import { downloadSeries, downloadSummary, type SeriesGrouping } from '../downloads/download-statistics';
import { detailsFromUpload } from '../packages/package-details';
import { packageDecider } from '../packages/package.decider';
import { isPackageIntegrationEvent } from '../packages/package.events';
import { PACKAGES, toPackage, type PackageDocument } from '../projections/packages.projection';
import { copyPackage } from '../copies/copy-package';
import { applyRetention, retentionPolicyOf } from '../retention/apply-retention';
import { retentionDecider } from '../retention/retention.decider';
import { retentionStream } from '../retention/retention.events';
import { blobKeysOf, releaseBlobsIfUnused } from '../uploads/blob-references';
import { claimUpload, type UploadSettings } from '../uploads/claim-upload';

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const DEFAULT_STATISTICS_DAYS = 30;

/** days back, today included, within what the buckets keep */
const statisticsDays = (days: number) => Math.min(Math.max(days || DEFAULT_STATISTICS_DAYS, 1), BUCKETS_KEPT.day);

function seriesGrouping(by: string): SeriesGrouping {
  if (by === '' || by === 'total') return 'total';
  if (by === 'version' || by === 'token') return by;
  throw invalid('PACKYARD_ARTIFACT_INVALID_GROUPING', `by must be version or token, not ${JSON.stringify(by)}`);
}

function downloadPeriod(period: string): DownloadPeriod {
  if (period === '' || period === 'day') return 'day';
  if (period === 'hour') return 'hour';
  throw invalid('PACKYARD_ARTIFACT_INVALID_PERIOD', `period must be day or hour, not ${JSON.stringify(period)}`);
}

/**
 * Every call first asks the repository module for the repository as the caller: it
 * answers 404 for one that is missing or not the caller's (tenancy lives there).
 */
export function artifactHandlers(
  es: EventSourcing,
  blobs: BlobStore,
  repositories: PackyardClient<typeof RepositoryServiceDefinition>,
  uploads: UploadSettings,
): ServiceImplementation<typeof ArtifactServiceDefinition, CallerContext> {
  const packages = es.readModels.collection<PackageDocument>(PACKAGES);
  const downloadBuckets = es.readModels.collection<DownloadBucketDocument>(DOWNLOAD_BUCKETS);
  const repositoryOf = (workspaceId: string, id: string, caller: CallerContext['caller']) => repositories.getRepository({ workspaceId, id }, { caller });

  const packageOf = async (repositoryId: string, packageId: string) => {
    const doc = packageId ? await packages.get(packageId) : undefined;
    if (!doc || doc.repositoryId !== repositoryId) throw notFound('PACKYARD_ARTIFACT_PACKAGE_NOT_FOUND', 'Package not found');
    return doc;
  };

  return {
    async claimUpload(request, { caller }) {
      let repository;
      try {
        repository = await repositoryOf(request.workspaceId, request.repositoryId, caller);
      } catch (error) {
        await Promise.all([request.stagingKey, ...request.sourceFiles.map((file) => file.stagingKey)].map((key) => blobs.delete(key)));
        throw error;
      }
      const { stagingKey, filename, distribution, sourceFiles } = request;
      return claimUpload(es, blobs, { repository, stagingKey, filename, distribution, sourceFiles, caller }, uploads);
    },

    async listPackages(request, { caller }) {
      const repository = await repositoryOf(request.workspaceId, request.repositoryId, caller);
      const size = Math.min(Math.max(request.size || DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
      const page = Math.max(request.page, 0);
      const contains = request.q.trim() ? { field: 'filename', value: request.q.trim() } : undefined;
      const [docs, total] = await Promise.all([
        packages.find({ repositoryId: repository.id }, { contains, sort: { field: 'publishedAt', direction: -1 }, skip: page * size, limit: size }),
        packages.count({ repositoryId: repository.id }, { contains }),
      ]);
      return { items: docs.map(toPackage), total };
    },

    async deletePackage(request, { caller }) {
      const repository = await repositoryOf(request.workspaceId, request.repositoryId, caller);
      const doc = await packageOf(repository.id, request.packageId);
      const result = await handleCommand(es.events, doc.stream, packageDecider, { type: 'DeletePackage', packageId: doc.id, reason: 'deleted', now: new Date().toISOString() }, {
        isIntegration: isPackageIntegrationEvent,
        metadata: { caller },
      });
      await es.caughtUp(result.lastPosition);
      await releaseBlobsIfUnused(es.readModels, blobs, blobKeysOf(doc));
      return {};
    },

    async copyPackage(request, { caller }) {
      const source = await repositoryOf(request.workspaceId, request.repositoryId, caller);
      const target = await repositoryOf(request.workspaceId, request.targetRepositoryId, caller);
      const doc = await packageOf(source.id, request.packageId);
      return copyPackage(es, { source: doc, target, distribution: request.distribution, promote: request.promote, caller, now: new Date().toISOString() });
    },

    async getRetentionPolicy(request, { caller }) {
      const repository = await repositoryOf(request.workspaceId, request.repositoryId, caller);
      return retentionPolicyOf(es, repository.id);
    },

    async setRetentionPolicy(request, { caller }) {
      const repository = await repositoryOf(request.workspaceId, request.repositoryId, caller);
      const policy = { keepVersions: request.policy?.keepVersions ?? 0, keepDownloadedDays: request.policy?.keepDownloadedDays ?? 0 };
      const result = await handleCommand(
        es.events,
        retentionStream(repository.id),
        retentionDecider,
        { type: 'SetRetentionPolicy', repositoryId: repository.id, workspaceId: repository.workspaceId, policy, now: new Date().toISOString() },
        { metadata: { caller } },
      );
      if (result.newEvents.length) await es.caughtUp(result.lastPosition);
      return retentionPolicyOf(es, repository.id);
    },

    async applyRetention(request, { caller }) {
      const repository = await repositoryOf(request.workspaceId, request.repositoryId, caller);
      const packages = await applyRetention(es, blobs, repository.id, { dryRun: request.dryRun, now: new Date(), metadata: { caller } });
      return { packages: packages.map(toPackage) };
    },

    async getPackage(request, { caller }) {
      const repository = await repositoryOf(request.workspaceId, request.repositoryId, caller);
      const doc = await packageOf(repository.id, request.packageId);
      const uploaded = (await es.events.readStream(doc.stream)).map((event) => decodeEvent(event, { PackageUploaded })).find((event) => event?.data.packageId === doc.id);
      if (!uploaded) throw notFound('PACKYARD_ARTIFACT_PACKAGE_NOT_FOUND', 'Package not found');
      const versions = await packages.find({ repositoryId: repository.id, name: doc.name }, { sort: { field: 'publishedAt', direction: -1 } });
      const distributions = versions.filter((other) => other.version === doc.version && other.architecture === doc.architecture).map((other) => other.distribution);
      return { ...detailsFromUpload(uploaded.data), package: toPackage(doc), versions: versions.map(toPackage), distributions: [...new Set(distributions)].sort() };
    },

    async getPackageDownloads(request, { caller }) {
      const grouping = seriesGrouping(request.by);
      const period = downloadPeriod(request.period);
      const repository = await repositoryOf(request.workspaceId, request.repositoryId, caller);
      const doc = await packageOf(repository.id, request.packageId);
      const keys = bucketKeys(period, Date.now(), period === 'day' ? statisticsDays(request.days) : BUCKETS_KEPT.hour);
      const buckets = grouping === 'version' ? await downloadBuckets.find({ repositoryId: repository.id, name: doc.name, period }) : await downloadBuckets.find({ packageId: doc.id, period });
      return downloadSeries(buckets, keys, grouping);
    },

    async getDownloadSummary(request, { caller }) {
      const keys = bucketKeys('day', Date.now(), statisticsDays(request.days));
      // the caller's own packages; an account token limited to one repository sees that one
      if (!caller.userId || isServiceCaller(caller)) return downloadSummary([], keys);
      const buckets = await downloadBuckets.find({ ownerId: caller.userId, period: 'day', ...(caller.repositoryId ? { repositoryId: caller.repositoryId } : {}) });
      return downloadSummary(buckets, keys);
    },

    async getPackageFile(request) {
      const doc = await packageOf(request.repositoryId, request.packageId);
      return { blobKey: doc.blobKey, size: doc.sizeBytes, sha256: doc.sha256, filename: doc.filename };
    },
  };
}
