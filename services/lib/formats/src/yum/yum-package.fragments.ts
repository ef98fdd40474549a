import { escapeXml as x } from '../common/xml-escape';
import type { RpmDependency, RpmFile, RpmPackage } from '../rpm/rpm.parser';

/** What the repodata needs of one stored .rpm. */
export interface YumIndexEntry {
  readonly rpm: RpmPackage;
  /** Path relative to the repository base URL, e.g. `Packages/h/hello-1.0-1.x86_64.rpm`. */
  readonly location: string;
  /** Seconds since the epoch when the package was stored (createrepo_c uses the file mtime). */
  readonly fileTime: number;
}

/** The three per-package XML fragments; cache them per package, indices concatenate them. */
export interface YumPackageFragments {
  readonly primary: string;
  readonly filelists: string;
  readonly other: string;
}

export function yumPackageFragments(entry: YumIndexEntry): YumPackageFragments {
  const { rpm } = entry;
  const identity = `pkgid="${rpm.file.sha256}" name="${x(rpm.name)}" arch="${x(rpm.arch)}"`;
  const version = `<version epoch="${rpm.epoch}" ver="${x(rpm.version)}" rel="${x(rpm.release)}"/>`;
  return {
    primary: primaryPackage(entry, version),
    filelists: `<package ${identity}>\n  ${version}\n${rpm.files.map((file) => `  ${fileElement(file)}\n`).join('')}</package>\n`,
    // rpm keeps the changelog newest first; createrepo_c lists it oldest first.
    other:
      `<package ${identity}>\n  ${version}\n` +
      [...rpm.changelog].reverse().map((entry) => `  <changelog author="${x(entry.author)}" date="${entry.date}">${x(entry.text)}</changelog>\n`).join('') +
      '</package>\n',
  };
}

function primaryPackage({ rpm, location, fileTime }: YumIndexEntry, version: string): string {
  return (
    '<package type="rpm">\n' +
    `  <name>${x(rpm.name)}</name>\n` +
    `  <arch>${x(rpm.arch)}</arch>\n` +
    `  ${version}\n` +
    `  <checksum type="sha256" pkgid="YES">${rpm.file.sha256}</checksum>\n` +
    `  <summary>${x(rpm.summary)}</summary>\n` +
    `  <description>${x(rpm.description)}</description>\n` +
    `  <packager>${x(rpm.packager)}</packager>\n` +
    `  <url>${x(rpm.url)}</url>\n` +
    `  <time file="${fileTime}" build="${rpm.buildTime}"/>\n` +
    `  <size package="${rpm.file.size}" installed="${rpm.installedSize}" archive="${rpm.archiveSize}"/>\n` +
    `  <location href="${x(location)}"/>\n` +
    '  <format>\n' +
    `    <rpm:license>${x(rpm.license)}</rpm:license>\n` +
    `    <rpm:vendor>${x(rpm.vendor)}</rpm:vendor>\n` +
    `    <rpm:group>${x(rpm.group)}</rpm:group>\n` +
    `    <rpm:buildhost>${x(rpm.buildHost)}</rpm:buildhost>\n` +
    `    <rpm:sourcerpm>${x(rpm.sourceRpm)}</rpm:sourcerpm>\n` +
    `    <rpm:header-range start="${rpm.headerRange.start}" end="${rpm.headerRange.end}"/>\n` +
    dependencyList('provides', rpm.provides) +
    dependencyList('requires', rpm.requires) +
    dependencyList('conflicts', rpm.conflicts) +
    dependencyList('obsoletes', rpm.obsoletes) +
    dependencyList('suggests', rpm.suggests) +
    dependencyList('enhances', rpm.enhances) +
    dependencyList('recommends', rpm.recommends) +
    dependencyList('supplements', rpm.supplements) +
    rpm.files.filter((file) => isPrimaryFile(file.path)).map((file) => `    ${fileElement(file)}\n`).join('') +
    '  </format>\n' +
    '</package>\n'
  );
}

function dependencyList(kind: string, dependencies: readonly RpmDependency[]): string {
  if (dependencies.length === 0) return '';
  const entries = dependencies.map((dependency) => {
    let attributes = `name="${x(dependency.name)}"`;
    if (dependency.flags) attributes += ` flags="${dependency.flags}"`;
    if (dependency.epoch !== undefined) attributes += ` epoch="${x(dependency.epoch)}"`;
    if (dependency.version !== undefined) attributes += ` ver="${x(dependency.version)}"`;
    if (dependency.release !== undefined) attributes += ` rel="${x(dependency.release)}"`;
    if (dependency.pre) attributes += ' pre="1"';
    return `      <rpm:entry ${attributes}/>\n`;
  });
  return `    <rpm:${kind}>\n${entries.join('')}    </rpm:${kind}>\n`;
}

const fileElement = (file: RpmFile) => (file.type === 'file' ? `<file>${x(file.path)}</file>` : `<file type="${file.type}">${x(file.path)}</file>`);

/**
 * Files dnf may need without downloading filelists (createrepo_c's rule): anything under
 * /etc, any path with "bin/" in it, and /usr/lib/sendmail.
 */
export const isPrimaryFile = (path: string): boolean =>
  path.startsWith('/etc/') || path.includes('bin/') || path === '/usr/lib/sendmail';
