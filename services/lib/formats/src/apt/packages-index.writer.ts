import type { ControlField } from '../deb/deb-control.parser';
import type { DebFileDigests } from '../deb/deb.parser';
import { type GzipBlockCache, gzipInBlocks, type IndexPiece } from '../common/gzip-blocks';
import { type AptIndexFile, aptIndexFile, gzip, turnBeforeHashing } from '../common/index-file';
import { PartDigests } from '../common/part-digests';
import type { ReleaseEntry } from './release.writer';
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

/** each entry's Architecture, found once: a build asks each of 100,000 entries three times, and the builders keep their entries from build to build */
const architectures = new WeakMap<AptIndexEntry, string | undefined>();

function architectureOf(entry: AptIndexEntry): string | undefined {
  if (architectures.has(entry)) return architectures.get(entry);
  // the length first: lowercasing every field name before it was most of a search
  const architecture = entry.control.find((field) => field.name.length === 12 && field.name.toLowerCase() === 'architecture')?.value;
  architectures.set(entry, architecture);
  return architecture;
}

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
   * Packages.xz is written while the plain index is at most this many bytes
   * (DEFAULT_XZ_MAX_PLAIN_BYTES); above it the index ships plain + gzip only, and apt takes
   * whichever compressed file the Release lists.
   */
  readonly xzMaxPlainBytes?: number;
  /** the plain index is stored while it is at most this many bytes (DEFAULT_PLAIN_MAX_BYTES) */
  readonly plainMaxBytes?: number;
}

/**
 * xz at our preset is hardly smaller than gzip on a Packages file, whose checksums do not
 * compress (2,000 packages: 1.28 MB plain, 381 KB gzip, 366 KB `xz -0`), and it is slow:
 * about 10 ms per 100 KiB of changed block on the publish path (lzma-native's bundled liblzma;
 * Debian's xz takes a third of that). Up to 2 MiB it held the upload → edge time at 2,000
 * packages 50 ms above the same index without it, for 4% fewer bytes to download. Below
 * 64 KiB (about a hundred packages) it costs a few ms and is kept.
 */
export const DEFAULT_XZ_MAX_PLAIN_BYTES = 64 * 1024;

/**
 * The plain index is stored while it is at most this many bytes. Above it Release still
 * lists it (its size and digests, what apt checks a decompressed index against) but it
 * is not served, as in Debian's and Ubuntu's archives: apt fetches a compressed index, and
 * one more package in 100,000 does not write, hash and sync 70 MB nobody downloads.
 */
export const DEFAULT_PLAIN_MAX_BYTES = 4 * 1024 * 1024;

/** One APT index: the files to store and serve, and what Release lists of it. */
export interface AptIndex {
  /** `<path>` (size permitting), `<path>.gz`, `<path>.xz` (size permitting) */
  files: AptIndexFile[];
  /** the files, and the plain index also when it is not stored */
  listed: ReleaseEntry[];
}

/** `Packages`, `Packages.gz` and (size permitting) `Packages.xz` for one component/arch. */
export const buildPackagesIndex = (stanzas: readonly IndexPiece[], options: PackagesIndexOptions, cache?: GzipBlockCache): Promise<AptIndex> =>
  buildAptIndex(`${options.component}/binary-${options.architecture}/Packages`, stanzas, options, cache);

/**
 * One APT index in its three forms: `<path>` and `<path>.xz` (size permitting), `<path>.gz`
 * (`main/binary-amd64/Packages`, `main/source/Sources`,
 * `main/debian-installer/binary-amd64/Packages`).
 */
export async function buildAptIndex(
  path: string,
  stanzas: readonly IndexPiece[],
  options: Pick<PackagesIndexOptions, 'xzMaxPlainBytes' | 'plainMaxBytes'>,
  cache?: GzipBlockCache,
): Promise<AptIndex> {
  const { plain: plainParts, blocks } = gzipInBlocks(path, stanzas, cache);
  const plainSize = plainParts.reduce((size, part) => size + part.length, 0);
  // both compressed block by block on the thread pool (a block the cache kept is not compressed
  // again), while the plain file is hashed here, from the first block that changed
  const compressing = Promise.all([
    plainParts.length ? blocks.then((made) => made.map((block) => block.gzipped)) : gzip(Buffer.alloc(0)).then((empty) => [empty]),
    plainSize <= (options.xzMaxPlainBytes ?? DEFAULT_XZ_MAX_PLAIN_BYTES) ? xzInBlocks(plainParts) : undefined,
  ]);
  // met below, after the hashing: a failure meanwhile is not an unhandled rejection
  compressing.catch(() => undefined);
  await turnBeforeHashing(plainSize);
  const digests = cache?.digests ?? new PartDigests();
  const plain = { path, size: plainSize, ...digests.of(path, plainParts) };
  const [gzipParts, xzed] = await compressing;
  const gzipped = Buffer.concat(gzipParts);
  const files: AptIndexFile[] = [
    ...(plainSize <= (options.plainMaxBytes ?? DEFAULT_PLAIN_MAX_BYTES) ? [{ ...plain, bytes: Buffer.concat(plainParts, plainSize) }] : []),
    { path: `${path}.gz`, bytes: gzipped, size: gzipped.length, ...digests.of(`${path}.gz`, gzipParts) },
    ...(xzed ? [aptIndexFile(`${path}.xz`, xzed)] : []),
  ];
  return { files, listed: files[0].path === path ? files : [plain, ...files] };
}
