import type { Readable } from 'node:stream';
import { ArtifactFormatError, ArtifactFormatErrorCode as Code } from '../common/artifact-format.error';
import { HashingStreamReader } from '../common/hashing-stream.reader';
import { inThreadDigester, type ParseOptions } from '../common/stream-digester';
import { HEADER_PREAMBLE_BYTES, type HeaderLimits, RpmHeader, headerBodyBytes, readHeaderPreamble } from './rpm-header.reader';
import { RPM_LEAD_BYTES } from './rpm-signature-header';

export type RpmDependencyFlag = 'EQ' | 'LT' | 'LE' | 'GT' | 'GE';

export interface RpmDependency {
  readonly name: string;
  readonly flags?: RpmDependencyFlag;
  readonly epoch?: string;
  readonly version?: string;
  readonly release?: string;
  /** Needed before the package's own scripts run (Requires(pre), Requires(post), PreReq). */
  readonly pre: boolean;
}

export interface RpmFile {
  readonly path: string;
  readonly type: 'file' | 'dir' | 'ghost';
}

export interface RpmChangelogEntry {
  readonly author: string;
  /** Seconds since the epoch, as rpm stores it. */
  readonly date: number;
  readonly text: string;
}

export interface RpmPackage {
  readonly name: string;
  readonly epoch: number;
  readonly version: string;
  readonly release: string;
  readonly arch: string;
  readonly summary: string;
  readonly description: string;
  readonly url: string;
  readonly license: string;
  readonly vendor: string;
  readonly group: string;
  readonly packager: string;
  readonly buildHost: string;
  readonly sourceRpm: string;
  readonly buildTime: number;
  readonly installedSize: number;
  readonly archiveSize: number;
  /** Byte offsets of the main header, as createrepo_c's `rpm:header-range`. */
  readonly headerRange: { readonly start: number; readonly end: number };
  readonly provides: readonly RpmDependency[];
  readonly requires: readonly RpmDependency[];
  readonly conflicts: readonly RpmDependency[];
  readonly obsoletes: readonly RpmDependency[];
  readonly recommends: readonly RpmDependency[];
  readonly suggests: readonly RpmDependency[];
  readonly supplements: readonly RpmDependency[];
  readonly enhances: readonly RpmDependency[];
  readonly files: readonly RpmFile[];
  /** Newest first, at most `changelogLimit` entries. */
  readonly changelog: readonly RpmChangelogEntry[];
  readonly fileDigestAlgorithm: string;
  readonly file: { readonly size: number; readonly sha256: string };
}

export interface RpmParseLimits {
  readonly maxPackageBytes: number;
  readonly signatureHeader: HeaderLimits;
  readonly mainHeader: HeaderLimits;
  /** createrepo_c keeps the 10 newest changelog entries by default. */
  readonly changelogLimit: number;
}

// rpm itself refuses headers with more than 0xffff entries or 256 MiB of data; the
// limits below are far tighter because real packages stay well within them.
export const DEFAULT_RPM_LIMITS: RpmParseLimits = {
  maxPackageBytes: 100 * 1024 * 1024,
  signatureHeader: { maxIndexEntries: 256, maxDataBytes: 1024 * 1024 },
  mainHeader: { maxIndexEntries: 65_535, maxDataBytes: 64 * 1024 * 1024 },
  changelogLimit: 10,
};

const LEAD_MAGIC = Buffer.from([0xed, 0xab, 0xee, 0xdb]);
const LEAD_TYPE_SOURCE = 1;

// Tag numbers from rpm's include/rpm/rpmtag.h.
const Tag = {
  name: 1000, version: 1001, release: 1002, epoch: 1003, summary: 1004, description: 1005,
  buildTime: 1006, buildHost: 1007, size: 1009, vendor: 1011, license: 1014, packager: 1015,
  group: 1016, url: 1020, arch: 1022, fileModes: 1030, fileFlags: 1037, sourceRpm: 1044,
  archiveSize: 1046, provideName: 1047, requireFlags: 1048, requireName: 1049, requireVersion: 1050,
  conflictFlags: 1053, conflictName: 1054, conflictVersion: 1055,
  changelogTime: 1080, changelogName: 1081, changelogText: 1082,
  obsoleteName: 1090, provideFlags: 1112, provideVersion: 1113, obsoleteFlags: 1114, obsoleteVersion: 1115,
  dirIndexes: 1116, baseNames: 1117, dirNames: 1118, longArchiveSize: 271,
  longSize: 5009, fileDigestAlgo: 5011,
  recommendName: 5046, recommendVersion: 5047, recommendFlags: 5048,
  suggestName: 5049, suggestVersion: 5050, suggestFlags: 5051,
  supplementName: 5052, supplementVersion: 5053, supplementFlags: 5054,
  enhanceName: 5055, enhanceVersion: 5056, enhanceFlags: 5057,
} as const;

// Signature header tags carrying the payload size (rpm merges them into the main header).
const SignatureTag = { payloadSize: 1007, longArchiveSize: 271 } as const;

// RPMSENSE_* bits from rpmds.h.
const Sense = { less: 1 << 1, greater: 1 << 2, equal: 1 << 3, posttrans: 1 << 5, prereq: 1 << 6, pretrans: 1 << 7, scriptPre: 1 << 9, scriptPost: 1 << 10 } as const;
const PRE_MASK = Sense.prereq | Sense.pretrans | Sense.scriptPre | Sense.scriptPost | Sense.posttrans;
const RPMFILE_GHOST = 1 << 6;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;

// PGPHASHALGO_* numbers used by RPMTAG_FILEDIGESTALGO; rpm assumes MD5 when absent.
const DIGEST_ALGORITHMS: Record<number, string> = { 1: 'md5', 2: 'sha1', 3: 'ripemd160', 8: 'sha256', 9: 'sha384', 10: 'sha512', 11: 'sha224' };

const invalid = (message: string) => new ArtifactFormatError(Code.invalidRpm, message);

/** Reads a binary or source .rpm from a stream: lead, signature header, main header; hashes the whole file. */
export async function parseRpm(input: Readable, limits: Partial<RpmParseLimits> = {}, options: ParseOptions = {}): Promise<RpmPackage> {
  const bounds = { ...DEFAULT_RPM_LIMITS, ...limits };
  const reader = new HashingStreamReader(input, (options.digester ?? inThreadDigester)(['sha256']), bounds.maxPackageBytes, Code.invalidRpm);
  try {
    return await readRpm(reader, bounds);
  } catch (error) {
    await reader.abandon();
    throw error;
  }
}

async function readRpm(reader: HashingStreamReader, limits: RpmParseLimits): Promise<RpmPackage> {
  const lead = await reader.read(RPM_LEAD_BYTES, 'rpm lead');
  if (!lead.subarray(0, 4).equals(LEAD_MAGIC)) throw invalid('file is not an RPM package (no lead magic)');
  const leadSaysSource = lead.readUInt16BE(6) === LEAD_TYPE_SOURCE;

  const signature = await readHeader(reader, limits.signatureHeader, 'signature header');
  // The signature header is padded so the main header starts on an 8-byte boundary.
  await reader.skip((8 - (reader.position % 8)) % 8, 'signature header padding');
  const start = reader.position;
  const header = await readHeader(reader, limits.mainHeader, 'main header');
  const end = reader.position;
  await reader.drain();
  const { size, sha256 } = await reader.digests();

  const sourceRpm = header.string(Tag.sourceRpm) ?? '';
  // rpm's headerIsSource(): a binary package names the source package it came from, a source
  // package does not. The lead says the same; a file whose two halves disagree is refused.
  const source = !sourceRpm;
  if (source !== leadSaysSource) {
    throw new ArtifactFormatError(Code.sourceRpm, `the lead says ${leadSaysSource ? 'source' : 'binary'} package but the header ${source ? 'names no' : 'names a'} source rpm`);
  }
  const required = (tag: number, label: string) => {
    const value = header.string(tag);
    if (!value) throw invalid(`package header has no ${label}`);
    if (/[\s/]/.test(value)) throw invalid(`package ${label} "${value}" contains whitespace or "/"`);
    return value;
  };
  const files = fileList(header);
  const provides = dependencies(header, Tag.provideName, Tag.provideFlags, Tag.provideVersion);
  return {
    name: required(Tag.name, 'name'),
    epoch: header.number(Tag.epoch) ?? 0,
    version: required(Tag.version, 'version'),
    release: required(Tag.release, 'release'),
    // rpm and createrepo_c call a source package's architecture "src" (its header holds the build host's)
    arch: source ? 'src' : required(Tag.arch, 'architecture'),
    summary: header.string(Tag.summary) ?? '',
    description: header.string(Tag.description) ?? '',
    url: header.string(Tag.url) ?? '',
    license: header.string(Tag.license) ?? '',
    vendor: header.string(Tag.vendor) ?? '',
    group: header.string(Tag.group) ?? '',
    packager: header.string(Tag.packager) ?? '',
    buildHost: header.string(Tag.buildHost) ?? '',
    sourceRpm,
    buildTime: header.number(Tag.buildTime) ?? 0,
    installedSize: header.number(Tag.longSize) ?? header.number(Tag.size) ?? 0,
    archiveSize:
      signature.number(SignatureTag.longArchiveSize) ?? signature.number(SignatureTag.payloadSize) ??
      header.number(Tag.longArchiveSize) ?? header.number(Tag.archiveSize) ?? 0,
    headerRange: { start, end },
    provides,
    requires: installRequirements(dependencies(header, Tag.requireName, Tag.requireFlags, Tag.requireVersion), provides, files),
    conflicts: dependencies(header, Tag.conflictName, Tag.conflictFlags, Tag.conflictVersion),
    obsoletes: dependencies(header, Tag.obsoleteName, Tag.obsoleteFlags, Tag.obsoleteVersion),
    recommends: dependencies(header, Tag.recommendName, Tag.recommendFlags, Tag.recommendVersion),
    suggests: dependencies(header, Tag.suggestName, Tag.suggestFlags, Tag.suggestVersion),
    supplements: dependencies(header, Tag.supplementName, Tag.supplementFlags, Tag.supplementVersion),
    enhances: dependencies(header, Tag.enhanceName, Tag.enhanceFlags, Tag.enhanceVersion),
    files,
    changelog: changelog(header, limits.changelogLimit),
    fileDigestAlgorithm: DIGEST_ALGORITHMS[header.number(Tag.fileDigestAlgo) ?? 1] ?? 'unknown',
    file: { size, sha256: sha256! },
  };
}

async function readHeader(reader: HashingStreamReader, limits: HeaderLimits, what: string): Promise<RpmHeader> {
  const { entries, dataBytes } = readHeaderPreamble(await reader.read(HEADER_PREAMBLE_BYTES, what), limits, what);
  return new RpmHeader(await reader.read(headerBodyBytes(entries, dataBytes), what), entries, what);
}

function dependencies(header: RpmHeader, nameTag: number, flagsTag: number, versionTag: number): RpmDependency[] {
  const names = header.stringArray(nameTag);
  const flags = header.numbers(flagsTag);
  const versions = header.stringArray(versionTag);
  return names.map((name, i) => ({ name, ...comparison(flags[i] ?? 0, versions[i] ?? ''), pre: ((flags[i] ?? 0) & PRE_MASK) !== 0 }));
}

function comparison(flags: number, evr: string): Omit<RpmDependency, 'name' | 'pre'> {
  const relation = flags & (Sense.less | Sense.greater | Sense.equal);
  const flag: RpmDependencyFlag | undefined = {
    [Sense.equal]: 'EQ', [Sense.less]: 'LT', [Sense.less | Sense.equal]: 'LE',
    [Sense.greater]: 'GT', [Sense.greater | Sense.equal]: 'GE',
  }[relation] as RpmDependencyFlag | undefined;
  if (!flag || !evr) return {};
  return { flags: flag, ...splitEvr(evr) };
}

/** "[epoch:]version[-release]" as createrepo_c splits it (epoch "0" when absent). */
export function splitEvr(evr: string): { epoch: string; version: string; release?: string } {
  const colon = evr.indexOf(':');
  const epoch = colon > 0 && /^\d+$/.test(evr.slice(0, colon)) ? evr.slice(0, colon) : '0';
  const rest = colon > 0 ? evr.slice(colon + 1) : evr;
  const dash = rest.lastIndexOf('-');
  return dash < 0 ? { epoch, version: rest } : { epoch, version: rest.slice(0, dash), release: rest.slice(dash + 1) };
}

/**
 * The requirements repository metadata lists, filtered as createrepo_c does: rpmlib()
 * capabilities are rpm's own, a package satisfying itself is noise, and duplicates go.
 */
function installRequirements(requires: RpmDependency[], provides: readonly RpmDependency[], files: readonly RpmFile[]): RpmDependency[] {
  const key = (d: RpmDependency) => [d.name, d.flags ?? '', d.epoch ?? '', d.version ?? '', d.release ?? ''].join('\0');
  const provided = new Set(provides.map(key));
  const ownFiles = new Set(files.map((file) => file.path));
  const seen = new Set<string>();
  return requires.filter((requirement) => {
    const id = key(requirement) + (requirement.pre ? '\0pre' : '');
    if (requirement.name.startsWith('rpmlib(') || provided.has(key(requirement)) || ownFiles.has(requirement.name) || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

function fileList(header: RpmHeader): RpmFile[] {
  const baseNames = header.stringArray(Tag.baseNames);
  const dirNames = header.stringArray(Tag.dirNames);
  const dirIndexes = header.numbers(Tag.dirIndexes);
  const modes = header.numbers(Tag.fileModes);
  const flags = header.numbers(Tag.fileFlags);
  if (dirIndexes.length !== baseNames.length) throw invalid('file list tags disagree in length');
  return baseNames.map((base, i) => {
    const dir = dirNames[dirIndexes[i]];
    if (dir === undefined) throw invalid('file list points at a missing directory');
    const type = ((flags[i] ?? 0) & RPMFILE_GHOST) !== 0 ? 'ghost' : ((modes[i] ?? 0) & S_IFMT) === S_IFDIR ? 'dir' : 'file';
    return { path: dir + base, type };
  });
}

function changelog(header: RpmHeader, limit: number): RpmChangelogEntry[] {
  const times = header.numbers(Tag.changelogTime);
  const names = header.stringArray(Tag.changelogName);
  const texts = header.stringArray(Tag.changelogText);
  return times.slice(0, limit).map((date, i) => ({ date, author: names[i] ?? '', text: texts[i] ?? '' }));
}
