import type { AptIndexFile } from '../common/index-file';

export interface ReleaseOptions {
  readonly origin: string;
  readonly label: string;
  readonly suite: string;
  readonly codename: string;
  /** Publication time; passed in because writers never read the clock. */
  readonly date: Date;
  readonly validUntil?: Date;
  readonly architectures: readonly string[];
  readonly components: readonly string[];
  readonly description: string;
  /** MD5Sum is kept by default for old apt versions; modern apt ignores it. */
  readonly includeMd5?: boolean;
}

/** what Release lists of one index file */
export type ReleaseEntry = Pick<AptIndexFile, 'path' | 'size' | 'md5' | 'sha256' | 'sha512'>;

const HASH_LISTS = [
  { field: 'MD5Sum', key: 'md5' },
  { field: 'SHA256', key: 'sha256' },
  { field: 'SHA512', key: 'sha512' },
] as const;

/**
 * A Release file with the fields in the order Debian's archive writes them (Origin,
 * Label, Suite, Codename, Date, Valid-Until, ..., Description, then the hash lists),
 * every value checked to stay on one line so no field can be smuggled in.
 */
export function buildRelease(files: readonly ReleaseEntry[], options: ReleaseOptions): string {
  const fields: [string, string][] = [
    ['Origin', options.origin],
    ['Label', options.label],
    ['Suite', options.suite],
    ['Codename', options.codename],
    ['Date', rfc2822Utc(options.date)],
    ...(options.validUntil ? [['Valid-Until', rfc2822Utc(options.validUntil)] as [string, string]] : []),
    ['Acquire-By-Hash', 'yes'],
    ['No-Support-for-Architecture-all', 'Packages'],
    ['Architectures', options.architectures.join(' ')],
    ['Components', options.components.join(' ')],
    ['Description', options.description],
  ];
  let text = '';
  for (const [name, value] of fields) {
    if (/[\n\r]/.test(value)) throw new Error(`Release field ${name} must be a single line`);
    text += `${name}: ${value}\n`;
  }
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const width = Math.max(0, ...sorted.map((file) => String(file.size).length));
  for (const { field, key } of HASH_LISTS) {
    if (key === 'md5' && options.includeMd5 === false) continue;
    text += `${field}:\n`;
    for (const file of sorted) text += ` ${file[key]} ${String(file.size).padStart(width)} ${file.path}\n`;
  }
  return text;
}

/** "Sun, 22 Nov 2026 02:51:40 UTC": RFC 2822 in UTC, as apt expects in Date and Valid-Until. */
export const rfc2822Utc = (date: Date): string => date.toUTCString().replace(/GMT$/, 'UTC');

/**
 * Where apt fetches a file when the Release says Acquire-By-Hash: yes. apt asks for the
 * strongest hash the Release lists, so the file is published under each listed hash.
 */
export function byHashPaths(file: ReleaseEntry, options: Pick<ReleaseOptions, 'includeMd5'> = {}): string[] {
  const directory = file.path.slice(0, file.path.lastIndexOf('/') + 1);
  return HASH_LISTS.filter(({ key }) => key !== 'md5' || options.includeMd5 !== false).map(
    ({ field, key }) => `${directory}by-hash/${field}/${file[key]}`,
  );
}
