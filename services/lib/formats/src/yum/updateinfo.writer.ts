import { escapeXml } from '../common/xml-escape';

/** The advisory types dnf filters on (`--security`, `--bugfix`, `--enhancement`). */
export const ADVISORY_TYPES = ['security', 'bugfix', 'enhancement'] as const;
export type AdvisoryType = (typeof ADVISORY_TYPES)[number];
/** Red Hat's severity names, which `dnf --sec-severity` and `dnf updateinfo info` show. */
export const ADVISORY_SEVERITIES = ['Low', 'Moderate', 'Important', 'Critical'] as const;

export interface UpdateinfoReference {
  readonly type: string;
  readonly id: string;
  readonly href: string;
  readonly title: string;
}

export interface UpdateinfoPackage {
  readonly name: string;
  readonly epoch: number;
  readonly version: string;
  readonly release: string;
  readonly arch: string;
}

export interface UpdateinfoAdvisory {
  readonly id: string;
  readonly type: string;
  /** empty: no `<severity>` */
  readonly severity: string;
  readonly title: string;
  readonly description: string;
  /** ISO 8601 */
  readonly issuedAt: string;
  readonly updatedAt: string;
  readonly references: readonly UpdateinfoReference[];
  readonly packages: readonly UpdateinfoPackage[];
}

export interface UpdateinfoOptions {
  /** `<update from=…>`: who issues the advisories (libsolv keeps it as the patch's vendor) */
  readonly from: string;
  /** the `<collection>` the packages are listed in: its short name and name */
  readonly collection: { readonly short: string; readonly name: string };
}

/** `2026-03-04 05:06:07`, the form createrepo_c writes and libsolv's updateinfo reader parses (UTC) */
const updateinfoDate = (iso: string) => new Date(iso).toISOString().slice(0, 19).replace('T', ' ');

/** `name-version-release.arch.rpm`, the file name rpm gives a built package */
export const rpmFilename = (pkg: UpdateinfoPackage) => `${pkg.name}-${pkg.version}-${pkg.release}.${pkg.arch}.rpm`;

/** empty values are left out, as createrepo_c leaves out unset ones */
const attributes = (values: [string, string][]) =>
  values
    .filter(([, value]) => value !== '')
    .map(([name, value]) => ` ${name}="${escapeXml(value)}"`)
    .join('');
const element = (indent: string, name: string, text: string) => (text ? `${indent}<${name}>${escapeXml(text)}</${name}>\n` : '');

/**
 * `repodata/updateinfo.xml`: one `<update>` per advisory, elements and attributes in the
 * order createrepo_c's `cr_xml_dump_updateinfo` writes them (libsolv's reader, which dnf
 * and zypper use, takes them in any order). Pure: the dates come with the advisories.
 */
export function buildUpdateinfo(advisories: readonly UpdateinfoAdvisory[], options: UpdateinfoOptions): string {
  const updates = advisories.map((advisory) => {
    const references = advisory.references
      .map((reference) => `      <reference${attributes([['href', reference.href], ['id', reference.id], ['type', reference.type], ['title', reference.title]])}/>\n`)
      .join('');
    const packages = advisory.packages
      .map(
        (pkg) =>
          `        <package${attributes([['name', pkg.name], ['version', pkg.version], ['release', pkg.release], ['epoch', String(pkg.epoch)], ['arch', pkg.arch]])}>\n` +
          `          <filename>${escapeXml(rpmFilename(pkg))}</filename>\n` +
          '        </package>\n',
      )
      .join('');
    return (
      `  <update${attributes([['from', options.from], ['status', 'final'], ['type', advisory.type], ['version', '1']])}>\n` +
      element('    ', 'id', advisory.id) +
      element('    ', 'title', advisory.title) +
      `    <issued date="${updateinfoDate(advisory.issuedAt)}"/>\n` +
      `    <updated date="${updateinfoDate(advisory.updatedAt)}"/>\n` +
      element('    ', 'severity', advisory.severity) +
      element('    ', 'description', advisory.description) +
      `    <references>\n${references}    </references>\n` +
      '    <pkglist>\n' +
      `      <collection short="${escapeXml(options.collection.short)}">\n` +
      element('        ', 'name', options.collection.name) +
      packages +
      '      </collection>\n' +
      '    </pkglist>\n' +
      '  </update>\n'
    );
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<updates>\n${updates.join('')}</updates>\n`;
}
