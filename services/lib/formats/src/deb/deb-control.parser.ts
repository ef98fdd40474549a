import { ArtifactFormatError, ArtifactFormatErrorCode as Code } from '../common/artifact-format.error';

/** One field of a binary control file, in file order; continuation lines kept verbatim. */
export interface ControlField {
  readonly name: string;
  /** First-line value, then each continuation line (leading space kept) joined by "\n". */
  readonly value: string;
}

/**
 * Fields the repository writes itself into the Packages index. A control file carrying
 * them would let an uploader point apt at another file or forge its checksum.
 */
const INDEX_FIELDS = new Set(['filename', 'size', 'md5sum', 'sha1', 'sha256', 'sha512', 'description-md5']);

// Policy §5.1: a field name is US-ASCII from "!" to "~" except ":", and does not start
// with "#" or "-".
const FIELD_NAME = /^[!-9;-~]+$/;
// Policy §5.6.7: lower case letters, digits, "+", "-", "."; at least two characters,
// starting with an alphanumeric.
export const DEBIAN_PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+$/;
// Policy §5.6.12: [epoch:]upstream_version[-debian_revision]. The upstream version starts
// with a digit and may hold a hyphen only when a revision follows; the revision has no
// hyphen.
const VERSION = /^(?:(\d+):)?([0-9][A-Za-z0-9.+~-]*?)(?:-([A-Za-z0-9.+~]+))?$/;
// Policy §5.6.8: a binary package names exactly one architecture (or "all"); architecture
// names are dpkg-architecture tokens.
const ARCHITECTURE = /^[a-z0-9][a-z0-9-]*$/;

const invalid = (message: string) => new ArtifactFormatError(Code.invalidControl, message);

/**
 * Parses a binary package's control file (Debian Policy §5.1 syntax, §5.3 fields):
 * exactly one stanza, no comments, no duplicate or index fields, and valid
 * Package/Version/Architecture.
 */
export function parseControlFile(text: string): ControlField[] {
  const parsed = parseStanza(text, 'control file', invalid);
  for (const { name } of parsed) {
    if (INDEX_FIELDS.has(name.toLowerCase())) throw invalid(`control file must not set the index field ${name}`);
  }
  validateIdentity(parsed);
  return parsed;
}

/**
 * One stanza of a Debian control file (Policy §5.1): `what` names the file in errors. No
 * comments (§5.1 allows them only in debian/control), no repeated field, fields kept in
 * file order with continuation lines verbatim (trailing blanks trimmed).
 */
export function parseStanza(text: string, what: string, fail: (message: string) => Error): ControlField[] {
  if (/[\r\0]/.test(text)) throw fail(`${what} contains a carriage return or NUL byte`);
  const lines = text.split('\n');
  // Policy §5.1: stanzas are separated by lines that are empty or hold only spaces and tabs.
  const isBlank = (line: string) => /^[ \t]*$/.test(line);
  let first = 0;
  while (first < lines.length && isBlank(lines[first])) first++;
  let last = lines.length;
  while (last > first && isBlank(lines[last - 1])) last--;
  if (first === last) throw fail(`${what} is empty`);

  const fields: { name: string; lines: string[] }[] = [];
  const seen = new Set<string>();
  for (const line of lines.slice(first, last)) {
    if (isBlank(line)) throw fail(`${what} has a second stanza`);
    if (line.startsWith(' ') || line.startsWith('\t')) {
      const current = fields.at(-1);
      if (!current) throw fail(`${what} starts with a continuation line`);
      current.lines.push(line.trimEnd());
      continue;
    }
    // Policy §5.1: comment lines are only allowed in source package control files.
    if (line.startsWith('#')) throw fail(`${what} contains a comment line`);
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon);
    if (!FIELD_NAME.test(name) || name.startsWith('-')) {
      throw fail(`${what} line is not a "Field: value" line: ${JSON.stringify(line.slice(0, 80))}`);
    }
    const key = name.toLowerCase();
    // Policy §5.1: field names are case-insensitive and a field occurs at most once.
    if (seen.has(key)) throw fail(`${what} repeats the field ${name}`);
    seen.add(key);
    fields.push({ name, lines: [line.slice(colon + 1).trim()] });
  }
  return fields.map(({ name, lines: valueLines }) => ({ name, value: valueLines.join('\n') }));
}

export const controlValue = (fields: readonly ControlField[], name: string): string | undefined =>
  fields.find((field) => field.name.toLowerCase() === name.toLowerCase())?.value;

function validateIdentity(fields: readonly ControlField[]): void {
  const required = (name: string): string => {
    const value = controlValue(fields, name);
    if (!value) throw invalid(`control file has no ${name} field`);
    if (value.includes('\n')) throw invalid(`control field ${name} must be a single line`);
    return value;
  };
  const name = required('Package');
  if (!DEBIAN_PACKAGE_NAME.test(name)) throw invalid(`"${name}" is not a valid Debian package name`);
  const version = required('Version');
  if (!isValidDebianVersion(version)) throw invalid(`"${version}" is not a valid Debian version`);
  const architecture = required('Architecture');
  if (!ARCHITECTURE.test(architecture) || architecture === 'any') {
    throw invalid(`"${architecture}" is not a single Debian architecture`);
  }
}

export function isValidDebianVersion(version: string): boolean {
  const match = VERSION.exec(version);
  return match !== null && (match[3] !== undefined || !match[2].includes('-'));
}
