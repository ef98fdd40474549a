import { isUtf8 } from 'node:buffer';
import { ArtifactFormatError, ArtifactFormatErrorCode as Code } from '../common/artifact-format.error';
import { type ControlField, controlValue, DEBIAN_PACKAGE_NAME, isValidDebianVersion, parseStanza } from './deb-control.parser';

/** One file a .dsc lists, with the digests it states (Files, Checksums-Sha1, Checksums-Sha256). */
export interface DscListedFile {
  readonly name: string;
  readonly size: number;
  readonly md5: string;
  /** only when the .dsc has Checksums-Sha1 (dpkg-source writes it; it is not required) */
  readonly sha1?: string;
  readonly sha256: string;
}

/** A Debian source control file (.dsc, Policy §5.4). */
export interface DebianSourceControl {
  readonly name: string;
  readonly version: string;
  /** every field but Files and Checksums-*, in file order: the Sources stanza starts with these */
  readonly control: readonly ControlField[];
  readonly files: readonly DscListedFile[];
}

/** the largest .dsc read: real ones are a few KiB, the biggest in Debian about 200 KiB */
export const MAX_DSC_BYTES = 1024 * 1024;

/** the fields the Sources index writes itself from the digests Packyard computed */
const FILE_LIST_FIELDS = new Set(['files', 'checksums-md5', 'checksums-sha1', 'checksums-sha256', 'checksums-sha512']);

// a file beside the .dsc in the pool directory: a plain name, never a path
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9+.~_-]*$/;
const HEX = { md5: /^[0-9a-f]{32}$/, sha1: /^[0-9a-f]{40}$/, sha256: /^[0-9a-f]{64}$/ } as const;

const invalid = (message: string) => new ArtifactFormatError(Code.invalidSourcePackage, message);

const SIGNED_HEADER = '-----BEGIN PGP SIGNED MESSAGE-----';
const SIGNATURE_HEADER = '-----BEGIN PGP SIGNATURE-----';

/**
 * The signed text of a clearsigned .dsc (RFC 4880 §7: armor headers up to the first empty
 * line, dash-escaped lines, the signature block after), or the text itself when it is not
 * signed. The signature is not checked: the repository's own signed indices vouch for the
 * file's digests, and the .dsc is stored and served byte for byte, signature included.
 */
function signedText(text: string): string {
  if (!text.startsWith(SIGNED_HEADER)) return text;
  const lines = text.split('\n');
  const start = lines.indexOf('');
  const end = lines.indexOf(SIGNATURE_HEADER);
  if (start < 0 || end < start) throw invalid('.dsc starts a clearsigned message but has no signature block');
  return lines
    .slice(start + 1, end)
    .map((line) => (line.startsWith('- ') ? line.slice(2) : line))
    .join('\n');
}

/** ` <digest> <size> <name>` lines of Files or a Checksums-* field */
function fileList(value: string, field: string, digest: RegExp): Map<string, { size: number; digest: string }> {
  const listed = new Map<string, { size: number; digest: string }>();
  for (const line of value.split('\n').map((part) => part.trim()).filter(Boolean)) {
    const parts = line.split(/\s+/);
    const [hex, size, name] = parts;
    if (parts.length !== 3 || !digest.test(hex) || !/^\d{1,15}$/.test(size)) throw invalid(`.dsc field ${field} has a malformed line: ${JSON.stringify(line.slice(0, 120))}`);
    if (!FILE_NAME.test(name)) throw invalid(`.dsc field ${field} lists ${JSON.stringify(name)}, which is not a plain file name`);
    if (listed.has(name)) throw invalid(`.dsc field ${field} lists ${name} twice`);
    listed.set(name, { size: Number(size), digest: hex });
  }
  return listed;
}

/**
 * Parses a .dsc (Policy §5.4, dsc(5)): one stanza, possibly clearsigned, with Format,
 * Source, Version, Files and Checksums-Sha256, every listed file a plain name starting
 * with `<source>_`, each checksum list naming the same files with the same sizes.
 */
export function parseDsc(bytes: Buffer): DebianSourceControl {
  if (bytes.length > MAX_DSC_BYTES) throw invalid(`.dsc is larger than ${MAX_DSC_BYTES} bytes`);
  if (!isUtf8(bytes)) throw invalid('.dsc is not valid UTF-8');
  const fields = parseStanza(signedText(bytes.toString('utf8')), '.dsc', invalid);
  const required = (name: string, multiline = false): string => {
    const value = controlValue(fields, name);
    if (!value) throw invalid(`.dsc has no ${name} field`);
    if (!multiline && value.includes('\n')) throw invalid(`.dsc field ${name} must be a single line`);
    return value;
  };
  required('Format');
  const name = required('Source');
  if (!DEBIAN_PACKAGE_NAME.test(name)) throw invalid(`"${name}" is not a valid Debian source package name`);
  const version = required('Version');
  if (!isValidDebianVersion(version)) throw invalid(`"${version}" is not a valid Debian version`);
  if (controlValue(fields, 'Package') !== undefined || controlValue(fields, 'Directory') !== undefined) {
    throw invalid('.dsc must not set the index fields Package or Directory');
  }

  const md5 = fileList(required('Files', true), 'Files', HEX.md5);
  const sha256 = fileList(required('Checksums-Sha256', true), 'Checksums-Sha256', HEX.sha256);
  const sha1Value = controlValue(fields, 'Checksums-Sha1');
  const sha1 = sha1Value === undefined ? undefined : fileList(sha1Value, 'Checksums-Sha1', HEX.sha1);
  if (md5.size === 0) throw invalid('.dsc lists no files');
  for (const [field, list] of [['Checksums-Sha256', sha256], ['Checksums-Sha1', sha1]] as const) {
    if (!list) continue;
    const names = [...new Set([...md5.keys(), ...list.keys()])];
    for (const file of names) {
      const inFiles = md5.get(file);
      const inList = list.get(file);
      if (!inFiles || !inList) throw invalid(`.dsc lists ${file} in ${inFiles ? 'Files' : field} but not in ${inFiles ? field : 'Files'}`);
      if (inFiles.size !== inList.size) throw invalid(`.dsc gives ${file} two sizes (${inFiles.size} in Files, ${inList.size} in ${field})`);
    }
  }
  const files = [...md5].map(([file, { size, digest }]) => {
    if (!file.startsWith(`${name}_`)) throw invalid(`.dsc lists ${file}, which is not a file of the source package ${name} (${name}_…)`);
    // binary packages and .dsc files have pool paths of their own beside these
    if (/\.(u|d)?deb$|\.dsc$/i.test(file)) throw invalid(`.dsc lists ${file}, which is a package, not a source file`);
    return { name: file, size, md5: digest, ...(sha1 ? { sha1: sha1.get(file)!.digest } : {}), sha256: sha256.get(file)!.digest };
  });
  const control = fields.filter((field) => !FILE_LIST_FIELDS.has(field.name.toLowerCase()));
  return { name, version, control, files };
}
