import type { ControlField } from '../deb/deb-control.parser';
import type { DebFileDigests } from '../deb/deb.parser';
import { type GzipBlockCache, gzipInBlocks, type IndexPiece } from '../common/gzip-blocks';
import { type AptIndexFile, aptIndexFile, gzip } from '../common/index-file';
import { xzInBlocks } from '../common/xz-blocks';

/** What the Packages index needs of one stored .deb. */
export interface AptIndexEntry {
  readonly control: readonly ControlField[];
  /** Pool path relative to the repository root, e.g. `pool/main/h/hello/hello_1.0_amd64.deb`. */
  readonly filename: string;
  readonly file: DebFileDigests;
}

/**
 * The field order apt-ftparchive writes (apt-pkg's TFRewritePackageOrder as of apt 2.6):
 * fields it knows in this order, the index fields at their places, then every other field
 * in the package's own order.
 */
const PACKAGES_FIELD_ORDER = [
  'Package', 'Package-Type', 'Architecture', 'Subarchitecture', 'Version', 'Kernel-Version', 'Built-Using', 'Static-Built-Using',
  'Built-For-Profiles', 'Auto-Built-Package', 'Multi-Arch', 'Status', 'Priority', 'Build-Essential', 'Protected', 'Important', 'Essential',
  'Installer-Menu-Item', 'Section', 'Source', 'Origin', 'Phased-Update-Percentage', 'Maintainer', 'Original-Maintainer', 'Bugs',
  'Config-Version', 'Conffiles', 'Triggers-Awaited', 'Triggers-Pending', 'Installed-Size', 'Provides', 'Pre-Depends', 'Depends',
  'Recommends', 'Suggests', 'Conflicts', 'Breaks', 'Replaces', 'Enhances', 'Filename', 'MSDOS-Filename', 'Size', 'MD5sum', 'SHA1',
  'SHA256', 'SHA512', 'Homepage', 'Description', 'Description-md5', 'Tag', 'Task',
];
const FIELD_RANK = new Map(PACKAGES_FIELD_ORDER.map((name, rank) => [name.toLowerCase(), rank]));
const rankOf = (field: ControlField) => FIELD_RANK.get(field.name.toLowerCase()) ?? PACKAGES_FIELD_ORDER.length;

/**
 * One Packages stanza, ending with the blank separator line: the control fields and
 * Filename, Size and the digests, in apt-ftparchive's field order. Depends only on the
 * entry, so callers cache it per package and an index of 10,000 packages is a
 * concatenation.
 */
export function packagesStanza(entry: AptIndexEntry): string {
  if (/[\n\r]/.test(entry.filename)) throw new Error('pool filename must be a single line');
  const fields: ControlField[] = [
    ...entry.control,
    { name: 'Filename', value: entry.filename },
    { name: 'Size', value: String(entry.file.size) },
    { name: 'MD5sum', value: entry.file.md5 },
    { name: 'SHA1', value: entry.file.sha1 },
    { name: 'SHA256', value: entry.file.sha256 },
    { name: 'SHA512', value: entry.file.sha512 },
  ];
  return stanzaText(fields, rankOf);
}

/** the fields in `rank` order (Array.prototype.sort is stable: unknown fields keep their own order), then the blank separator line */
export function stanzaText(fields: ControlField[], rank: (field: ControlField) => number): string {
  let stanza = '';
  for (const field of fields.sort((a, b) => rank(a) - rank(b))) {
    // A value may start on the next line (e.g. "Description:" then " text"): no trailing space then.
    stanza += field.value === '' || field.value.startsWith('\n') ? `${field.name}:${field.value}\n` : `${field.name}: ${field.value}\n`;
  }
  return `${stanza}\n`;
}

const architectureOf = (entry: AptIndexEntry) =>
  entry.control.find((field) => field.name.toLowerCase() === 'architecture')?.value;

/**
 * The packages listed in `binary-<arch>`: that architecture's own plus every
 * `Architecture: all` package (the Release says No-Support-for-Architecture-all, so apt
 * looks for arch-independent packages there and not in a binary-all index).
 */
export const packagesForArchitecture = <T extends AptIndexEntry>(entries: readonly T[], architecture: string): T[] =>
  entries.filter((entry) => {
    const own = architectureOf(entry);
    return own === architecture || own === 'all';
  });

/**
 * Architectures a distribution publishes: every concrete one that has a package, plus
 * `alwaysPublished` so a repository holding only `all` packages still serves the usual
 * machines without apt warning about a missing architecture.
 */
export function publishedArchitectures(entries: readonly AptIndexEntry[], alwaysPublished: readonly string[] = ['amd64', 'arm64']): string[] {
  const found = new Set(alwaysPublished);
  for (const entry of entries) {
    const architecture = architectureOf(entry);
    if (architecture && architecture !== 'all') found.add(architecture);
  }
  return [...found].sort();
}

export interface PackagesIndexOptions {
  readonly component: string;
  readonly architecture: string;
  /**
   * Packages.xz is written while the plain index is at most this many bytes. Above it the
   * gzip file is within a few percent of xz's size (the checksums do not compress) while
   * xz would cost 80 ms per MiB here, so big indices ship plain + gzip only; apt takes
   * whichever compressed file the Release lists.
   */
  readonly xzMaxPlainBytes?: number;
}

export const DEFAULT_XZ_MAX_PLAIN_BYTES = 2 * 1024 * 1024;

/** `Packages`, `Packages.gz` and (size permitting) `Packages.xz` for one component/arch. */
export const buildPackagesIndex = (stanzas: readonly IndexPiece[], options: PackagesIndexOptions, cache?: GzipBlockCache): Promise<AptIndexFile[]> =>
  buildAptIndex(`${options.component}/binary-${options.architecture}/Packages`, stanzas, options, cache);

/**
 * One APT index in its three forms: `<path>`, `<path>.gz` and, size permitting, `<path>.xz`
 * (`main/binary-amd64/Packages`, `main/source/Sources`,
 * `main/debian-installer/binary-amd64/Packages`).
 */
export async function buildAptIndex(path: string, stanzas: readonly IndexPiece[], options: Pick<PackagesIndexOptions, 'xzMaxPlainBytes'>, cache?: GzipBlockCache): Promise<AptIndexFile[]> {
  const blocks = await gzipInBlocks(path, stanzas, cache);
  const plain = Buffer.concat(blocks.map((block) => block.plain));
  const withXz = plain.length <= (options.xzMaxPlainBytes ?? DEFAULT_XZ_MAX_PLAIN_BYTES);
  // both compressed block by block: a block the cache kept is not compressed again
  const [gzipped, xzed] = await Promise.all([
    blocks.length ? Buffer.concat(blocks.map((block) => block.gzipped)) : gzip(plain),
    withXz ? xzInBlocks(blocks.map((block) => block.plain)) : undefined,
  ]);
  // the plain and gzip files are their blocks joined: hashed from the first block that changed
  const ofBlocks = (name: string, bytes: Buffer, parts: Buffer[]): AptIndexFile =>
    cache && parts.length ? { path: name, bytes, size: bytes.length, ...cache.digests.of(name, parts) } : aptIndexFile(name, bytes);
  return [
    ofBlocks(path, plain, blocks.map((block) => block.plain)),
    ofBlocks(`${path}.gz`, gzipped, blocks.map((block) => block.gzipped)),
    ...(xzed ? [aptIndexFile(`${path}.xz`, xzed)] : []),
  ];
}
