import { createHash } from 'node:crypto';
import { formatDistribution, type Distribution } from '@packyard/formats';
import type { DomainEvent } from '@packyard/platform';
import type {
  PackageCopied as PackageCopiedData,
  PackageDeleted as PackageDeletedData,
  PackageDownloaded as PackageDownloadedData,
  PackageUploaded as PackageUploadedData,
} from '@packyard/proto/packyard/artifact/v1/events';

export type PackageUploaded = DomainEvent<'PackageUploaded', PackageUploadedData>;
export type PackageDeleted = DomainEvent<'PackageDeleted', PackageDeletedData>;
/** how a package entered its repository when it came from another one (after its PackageUploaded) */
export type PackageCopied = DomainEvent<'PackageCopied', PackageCopiedData>;
export type PackagePromoted = DomainEvent<'PackagePromoted', PackageCopiedData>;
export type PackageEvent = PackageUploaded | PackageDeleted | PackageCopied | PackagePromoted;
export type { PackageCopiedData, PackageDownloadedData };

/**
 * All go to `packyard.artifact.events.v1`: repository publishes from PackageUploaded and
 * PackageDeleted whichever way the package came; PackageCopied / PackagePromoted tell the
 * audit log how it came.
 */
export const isPackageIntegrationEvent = (_event: PackageEvent) => true;

export interface PackageCoordinates {
  repositoryId: string;
  name: string;
  version: string;
  architecture: string;
  uploadDistribution: Distribution;
}

/**
 * One stream per (repository, name, version, architecture, distribution): the rule "no
 * duplicates" is this aggregate's invariant, checked with optimistic concurrency on a
 * short stream instead of a repository-wide one that would grow with every upload. The
 * distribution is hashed as `distro/version`, the form streams were named by before it was
 * a message, so a package keeps its stream.
 */
export const packageStream = (c: PackageCoordinates) =>
  `package-${c.repositoryId}_${createHash('sha256').update([c.name, c.version, c.architecture, formatDistribution(c.uploadDistribution)].join('\0')).digest('hex').slice(0, 32)}`;
