import type { Distribution } from '@packyard/proto/packyard/common/v1/common';
import { ArtifactFormatError, ArtifactFormatErrorCode as Code } from './common/artifact-format.error';

export type RepositoryKind = 'DEB' | 'RPM';

/**
 * A publishing target or upload choice, e.g. ubuntu/noble or el/9 (spec §9): the proto
 * message modules exchange, so the `distro/version` string exists only at the edges.
 */
export type { Distribution };

export const ANY_DISTRO = 'any-distro';
export const ANY_VERSION = 'any-version';

/** Upload distribution choices, in the order the console lists them (spec §9). */
export const DEB_UPLOAD_DISTRIBUTIONS = [
  'ubuntu/noble', 'ubuntu/jammy', 'ubuntu/focal', 'ubuntu/bionic', 'ubuntu/xenial', 'ubuntu/any-version',
  'debian/bookworm', 'debian/bullseye', 'debian/buster', 'debian/stretch', 'debian/any-version',
  'elementaryos/juno', 'elementaryos/jolnir', 'elementaryos/hera', 'elementaryos/freya', 'elementaryos/any-version',
  'kali/kali-rolling', 'kali/any-version',
  'any-distro/any-version',
] as const;

export const RPM_UPLOAD_DISTRIBUTIONS = [
  'el/9', 'el/8', 'el/7', 'fedora/39', 'fedora/38', 'fedora/37', 'opensuse/tumbleweed', 'opensuse/leap-15.5',
  'any-distro/any-version',
] as const;

export const uploadDistributions = (kind: RepositoryKind): readonly string[] =>
  kind === 'DEB' ? DEB_UPLOAD_DISTRIBUTIONS : RPM_UPLOAD_DISTRIBUTIONS;

/** Install-tab codename choices (spec §9) with the distro whose path serves them. */
export const INSTALL_CODENAMES = [
  { codename: 'noble', distro: 'ubuntu', label: 'Ubuntu 24.04' },
  { codename: 'jammy', distro: 'ubuntu', label: 'Ubuntu 22.04' },
  { codename: 'focal', distro: 'ubuntu', label: 'Ubuntu 20.04' },
  { codename: 'bookworm', distro: 'debian', label: 'Debian 12' },
  { codename: 'bullseye', distro: 'debian', label: 'Debian 11' },
] as const;

export const INSTALL_COMPONENTS = ['main', 'contrib', 'non-free'] as const;
export const DEFAULT_INSTALL_CODENAME = 'noble';
export const DEFAULT_INSTALL_COMPONENT = 'main';

/** The distro an install codename belongs to, for `deb {repositoryUrl}/{distro} {codename} …`. */
export function distroForCodename(codename: string): string | undefined {
  return INSTALL_CODENAMES.find((choice) => choice.codename === codename)?.distro ??
    concreteDistributions('DEB').find((distribution) => distribution.version === codename)?.distro;
}

// Path segments that are safe in URLs, file names and apt source lines.
const SEGMENT_SHAPE = '[a-z0-9][a-z0-9.+-]*';
const SEGMENT = new RegExp(`^${SEGMENT_SHAPE}$`);

/** the shape of `distro/version`, for request schemas that check shapes: a value of it parses */
export const DISTRIBUTION_PATTERN = `^${SEGMENT_SHAPE}/${SEGMENT_SHAPE}$`;

/**
 * Parses and checks an upload distribution against the kind's list. The list is closed,
 * so a value with slashes, newlines or spaces can never reach a path or an index.
 */
export function parseDistribution(value: string, kind?: RepositoryKind): Distribution {
  const parts = value.split('/');
  if (parts.length !== 2 || !parts.every((part) => SEGMENT.test(part))) {
    throw new ArtifactFormatError(Code.invalidDistribution, `"${value}" is not a distribution of the form distro/version`);
  }
  const distribution = { distro: parts[0], version: parts[1] };
  if (kind && !isUploadDistribution(kind, distribution)) {
    throw new ArtifactFormatError(Code.invalidDistribution, `"${value}" is not a ${kind} upload distribution`);
  }
  return distribution;
}

export const formatDistribution = (distribution: Distribution): string => `${distribution.distro}/${distribution.version}`;

/** whether the kind's upload list (closed: spec §9) offers `distribution` */
export const isUploadDistribution = (kind: RepositoryKind, distribution: Distribution): boolean =>
  uploadDistributions(kind).includes(formatDistribution(distribution));

/** Every real (distro, version) target of a kind: the list without any-version entries. */
export function concreteDistributions(kind: RepositoryKind): Distribution[] {
  return uploadDistributions(kind)
    .map((value) => parseDistribution(value))
    .filter((distribution) => distribution.version !== ANY_VERSION);
}

/**
 * DESIGN §4: whether a package uploaded to `upload` appears in the index of `target`.
 * `distro/any-version` reaches every version of that distro (also versions outside the
 * list, such as a repository's own codename); `any-distro/any-version` reaches all.
 */
export function isVisibleIn(upload: Distribution, target: Distribution): boolean {
  if (upload.distro === ANY_DISTRO) return true;
  if (upload.distro !== target.distro) return false;
  return upload.version === ANY_VERSION || upload.version === target.version;
}

/** The listed (distro, version) indices a package uploaded to `upload` appears in. */
export function indexTargets(kind: RepositoryKind, upload: Distribution): Distribution[] {
  return concreteDistributions(kind).filter((target) => isVisibleIn(upload, target));
}

/** The upload distributions whose packages the index of `target` contains. */
export function uploadsVisibleIn(kind: RepositoryKind, target: Distribution): Distribution[] {
  return uploadDistributions(kind)
    .map((value) => parseDistribution(value))
    .filter((upload) => isVisibleIn(upload, target));
}
