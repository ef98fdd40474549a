import type { ControlField } from '../deb/deb-control.parser';
import type { DebFileDigests } from '../deb/deb.parser';
import { stanzaText } from './packages-index.writer';

/** One file of a source package in its pool directory, with the digests Packyard computed. */
export interface SourceIndexFile extends DebFileDigests {
  readonly name: string;
}

/** What the Sources index needs of one stored source package. */
export interface SourceIndexEntry {
  /** the .dsc's fields without Files and Checksums-* (DebianSourceControl.control) */
  readonly control: readonly ControlField[];
  /** the pool directory holding every file, e.g. `pool/main/h/hello` */
  readonly directory: string;
  /** the .dsc first, then the files it lists, in its order */
  readonly files: readonly SourceIndexFile[];
}

/** The field order apt-ftparchive writes Sources stanzas in (apt-pkg's TFRewriteSourceOrder as of apt 2.6). */
const SOURCES_FIELD_ORDER = [
  'Package', 'Source', 'Format', 'Binary', 'Architecture', 'Version', 'Priority', 'Class', 'Section', 'Origin', 'Maintainer',
  'Original-Maintainer', 'Uploaders', 'Dm-Upload-Allowed', 'Standards-Version', 'Build-Depends', 'Build-Depends-Arch',
  'Build-Depends-Indep', 'Build-Conflicts', 'Build-Conflicts-Arch', 'Build-Conflicts-Indep', 'Testsuite', 'Testsuite-Triggers',
  'Homepage', 'Vcs-Browser', 'Vcs-Browse', 'Vcs-Arch', 'Vcs-Bzr', 'Vcs-Cvs', 'Vcs-Darcs', 'Vcs-Git', 'Vcs-Hg', 'Vcs-Mtn', 'Vcs-Svn',
  'Directory', 'Package-List', 'Files', 'Checksums-Md5', 'Checksums-Sha1', 'Checksums-Sha256', 'Checksums-Sha512',
];
const FIELD_RANK = new Map(SOURCES_FIELD_ORDER.map((name, rank) => [name.toLowerCase(), rank]));
const rankOf = (field: ControlField) => FIELD_RANK.get(field.name.toLowerCase()) ?? SOURCES_FIELD_ORDER.length;

const fileLines = (files: readonly SourceIndexFile[], digest: (file: SourceIndexFile) => string) =>
  files.map((file) => `\n ${digest(file)} ${file.size} ${file.name}`).join('');

/**
 * One Sources stanza as apt-ftparchive writes it: the .dsc's Source becomes Package, then
 * Directory and the file lists (the .dsc itself first) with MD5, SHA-1, SHA-256 and
 * SHA-512, in apt-ftparchive's field order, ending with the blank separator line.
 */
export function sourcesStanza(entry: SourceIndexEntry): string {
  if (/[\n\r]/.test(entry.directory) || entry.files.some((file) => /[\s]/.test(file.name))) throw new Error('pool directory and file names must be single words');
  const fields: ControlField[] = [
    ...entry.control.map((field) => (field.name.toLowerCase() === 'source' ? { name: 'Package', value: field.value } : field)),
    { name: 'Directory', value: entry.directory },
    { name: 'Files', value: fileLines(entry.files, (file) => file.md5) },
    { name: 'Checksums-Sha1', value: fileLines(entry.files, (file) => file.sha1) },
    { name: 'Checksums-Sha256', value: fileLines(entry.files, (file) => file.sha256) },
    { name: 'Checksums-Sha512', value: fileLines(entry.files, (file) => file.sha512) },
  ];
  return stanzaText(fields, rankOf);
}
