import { formatDistribution } from '@packyard/formats';
import type { PackageUploaded } from '@packyard/formats/recorded-distributions';
import type { StoredFile } from '@packyard/proto/packyard/artifact/v1/events';

/** A stored package as publishing sees it: artifact's PackageUploaded, kept by the repository module. */
export interface PublishablePackage {
  id: string;
  repositoryId: string;
  kind: string;
  /** the upload distribution as `distro/version`: the form these documents were stored in before it was a message */
  distribution: string;
  name: string;
  version: string;
  architecture: string;
  filename: string;
  sizeBytes: number;
  sha256: string;
  blobKey: string;
  uploadedAt: string;
  /** the PackageUploaded contract: DEB {control, file}, DEB source {source: {control, files}}, RPM {rpm} */
  indexEntryJson: string;
  /** a Debian source package's files besides its .dsc */
  sourceFiles: StoredFile[];
}

export const toPublishablePackage = (data: PackageUploaded): PublishablePackage => ({
  id: data.packageId,
  repositoryId: data.repositoryId,
  kind: data.kind,
  distribution: formatDistribution(data.uploadDistribution),
  name: data.name,
  version: data.version,
  architecture: data.architecture,
  filename: data.filename,
  sizeBytes: data.sizeBytes,
  sha256: data.sha256,
  blobKey: data.blobKey,
  uploadedAt: data.uploadedAt,
  indexEntryJson: data.indexEntryJson,
  // events recorded before source packages existed have none
  sourceFiles: data.sourceFiles ?? [],
});
