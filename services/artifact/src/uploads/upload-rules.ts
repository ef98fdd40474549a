import { invalid } from '@packyard/platform';
import {
  ArtifactFormatError,
  isArtifactFormatError,
  parseDistribution,
  uploadDistributions,
  type DebPackage,
  type Distribution,
  type RepositoryKind,
  type RpmPackage,
} from '@packyard/formats';
import { PackyardError } from '@packyard/platform';

/** The spec's messages (§5, "Package upload"): the server says exactly what the console says. */
export const DISTRIBUTION_REQUIRED = 'Distribution is required for upload';
export const extensionMessage = (kind: RepositoryKind) => `File must be a ${kind === 'DEB' ? '.deb' : '.rpm'} package`;

/**
 * What a DEB repository takes besides .deb: debian-installer packages (.udeb), debug symbols
 * (.ddeb) and source packages (a .dsc with the files it lists). The spec's message names
 * .deb only, the console's one choice.
 */
export const DEB_UPLOAD_TYPES = ['deb', 'udeb', 'ddeb', 'dsc'] as const;
export type DebUploadType = (typeof DEB_UPLOAD_TYPES)[number];

/** The client's file name only decides whether the extension fits; it never becomes a path. */
export function checkExtension(kind: RepositoryKind, filename: string): void {
  const name = filename.toLowerCase();
  const fits = kind === 'DEB' ? DEB_UPLOAD_TYPES.some((type) => name.endsWith(`.${type}`)) : name.endsWith('.rpm');
  if (!fits) throw invalid('PACKYARD_ARTIFACT_WRONG_EXTENSION', extensionMessage(kind));
}

/** a DEB upload's type, by its extension (checked before) */
export const debUploadType = (filename: string): DebUploadType => DEB_UPLOAD_TYPES.find((type) => filename.toLowerCase().endsWith(`.${type}`)) ?? 'deb';

export function checkDistribution(kind: RepositoryKind, value: string): Distribution {
  if (!value.trim()) throw invalid('PACKYARD_ARTIFACT_DISTRIBUTION_REQUIRED', DISTRIBUTION_REQUIRED);
  try {
    return parseDistribution(value, kind);
  } catch (error) {
    if (!isArtifactFormatError(error)) throw error;
    throw invalid(error.code, `Unknown distribution ${JSON.stringify(value)} for a ${kind} repository; choose one of: ${uploadDistributions(kind).join(', ')}`);
  }
}

/** What a package is known by, derived from its own metadata (never from the upload's name). */
export interface PackageIdentity {
  name: string;
  version: string;
  architecture: string;
  /** canonical file name: Debian's `name_version_arch.deb` (no epoch) or rpm's `name-version-release.arch.rpm` */
  filename: string;
  /** what the index writers need, as JSON (the PackageUploaded contract) */
  indexEntryJson: string;
}

const withoutEpoch = (version: string) => version.replace(/^\d+:/, '');

/** a binary package: `.deb`, or `.udeb` / `.ddeb`, whose canonical name keeps that extension (the publisher indexes by it) */
export function debIdentity(deb: DebPackage, type: Exclude<DebUploadType, 'dsc'> = 'deb'): PackageIdentity {
  return {
    name: deb.name,
    version: deb.version,
    architecture: deb.architecture,
    filename: `${deb.name}_${withoutEpoch(deb.version)}_${deb.architecture}.${type}`,
    // the file list rides along for the package page (bounded by the parser's listing limits)
    indexEntryJson: JSON.stringify({ control: deb.control, file: deb.file, contents: deb.contents }),
  };
}

export function rpmIdentity(rpm: RpmPackage): PackageIdentity {
  return {
    name: rpm.name,
    version: `${rpm.epoch ? `${rpm.epoch}:` : ''}${rpm.version}-${rpm.release}`,
    architecture: rpm.arch,
    filename: `${rpm.name}-${rpm.version}-${rpm.release}.${rpm.arch}.rpm`,
    indexEntryJson: JSON.stringify({ rpm }),
  };
}

/** a malformed package is the client's fault: 400 with the parser's reason */
export const asUploadError = (error: unknown): unknown =>
  error instanceof ArtifactFormatError ? new PackyardError('INVALID', error.code, `Invalid package: ${error.message}`) : error;
