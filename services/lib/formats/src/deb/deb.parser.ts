import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { extract } from 'tar-stream';
import { ArtifactFormatError, ArtifactFormatErrorCode as Code } from '../common/artifact-format.error';
import { type Compression, decompressBounded } from './control-archive.decompression';
import { HashingStreamReader } from '../common/hashing-stream.reader';
import { type DataListingLimits, type DebContents, DEFAULT_DATA_LISTING_LIMITS, listDataArchive } from './data-archive.listing';
import { inThreadDigester, type ParseOptions } from '../common/stream-digester';
import { type ControlField, controlValue, parseControlFile } from './deb-control.parser';

export interface DebFileDigests {
  readonly size: number;
  readonly md5: string;
  readonly sha1: string;
  readonly sha256: string;
  readonly sha512: string;
}

export interface DebPackage {
  readonly name: string;
  readonly version: string;
  readonly architecture: string;
  /** Every control field in file order: the Packages stanza starts with exactly these. */
  readonly control: readonly ControlField[];
  readonly file: DebFileDigests;
  readonly controlCompression: Compression;
  readonly dataCompression: Compression;
  /** the files data.tar installs (bounded: see DataListingLimits) */
  readonly contents: DebContents;
}

export interface DebParseLimits extends DataListingLimits {
  /** Whole .deb; the HTTP layer usually enforces the upload limit already. */
  readonly maxPackageBytes: number;
  /** control.tar member as stored (compressed). */
  readonly maxControlMemberBytes: number;
  /** control.tar after decompression. */
  readonly maxControlTarBytes: number;
  /** The `control` file inside control.tar. */
  readonly maxControlFileBytes: number;
}

export const DEFAULT_DEB_LIMITS: DebParseLimits = {
  maxPackageBytes: 100 * 1024 * 1024,
  maxControlMemberBytes: 4 * 1024 * 1024,
  maxControlTarBytes: 4 * 1024 * 1024,
  maxControlFileBytes: 1024 * 1024,
  ...DEFAULT_DATA_LISTING_LIMITS,
};

const AR_MAGIC = '!<arch>\n';
const AR_HEADER_BYTES = 60;
const COMPRESSION_BY_SUFFIX: Record<string, Compression> = { '': 'none', '.gz': 'gzip', '.xz': 'xz', '.zst': 'zstd' };

const invalid = (message: string) => new ArtifactFormatError(Code.invalidDeb, message);

interface ArMember {
  readonly name: string;
  readonly size: number;
}

/**
 * Reads a .deb (deb(5): an ar archive of debian-binary, control.tar[.gz|.xz|.zst],
 * data.tar[...]) from a stream. Only control.tar is held in memory; data.tar flows
 * through the digests and is dropped.
 */
export async function parseDeb(input: Readable, limits: Partial<DebParseLimits> = {}, options: ParseOptions = {}): Promise<DebPackage> {
  const bounds = { ...DEFAULT_DEB_LIMITS, ...limits };
  const digester = (options.digester ?? inThreadDigester)(['md5', 'sha1', 'sha256', 'sha512']);
  const reader = new HashingStreamReader(input, digester, bounds.maxPackageBytes, Code.invalidDeb);
  try {
    return await readDeb(reader, bounds);
  } catch (error) {
    await reader.abandon();
    throw error;
  }
}

async function readDeb(reader: HashingStreamReader, limits: DebParseLimits): Promise<DebPackage> {
  const magic = await reader.read(AR_MAGIC.length, 'ar signature');
  if (magic.toString('latin1') !== AR_MAGIC) throw invalid('file is not a Debian package (no ar signature)');

  const versionMember = await readMemberHeader(reader);
  if (versionMember?.name !== 'debian-binary') throw invalid('the first member of a .deb must be debian-binary');
  if (versionMember.size > 64) throw invalid('debian-binary is too large');
  const formatVersion = (await readMemberBody(reader, versionMember)).toString('latin1');
  if (!/^2\.\d+\n/.test(formatVersion)) throw invalid(`unsupported .deb format version ${JSON.stringify(formatVersion.trim())}`);

  let control: { fields: ControlField[]; compression: Compression } | undefined;
  let dataCompression: Compression | undefined;
  let contents: DebContents | undefined;
  for (let member = await readMemberHeader(reader); member; member = await readMemberHeader(reader)) {
    const controlSuffix = tarSuffix(member.name, 'control.tar');
    const dataSuffix = tarSuffix(member.name, 'data.tar');
    if (controlSuffix !== undefined && !control && dataCompression === undefined) {
      if (member.size > limits.maxControlMemberBytes) {
        throw new ArtifactFormatError(Code.decompressionLimit, `control.tar member is larger than ${limits.maxControlMemberBytes} bytes`);
      }
      const compression = COMPRESSION_BY_SUFFIX[controlSuffix];
      const tar = await decompressBounded(await readMemberBody(reader, member), compression, limits.maxControlTarBytes, member.name);
      control = { fields: parseControlFile(await controlFileFrom(tar, limits.maxControlFileBytes)), compression };
    } else if (dataSuffix !== undefined && control && dataCompression === undefined) {
      dataCompression = COMPRESSION_BY_SUFFIX[dataSuffix];
      let consumed = 0;
      const body = (async function* () {
        for await (const chunk of reader.chunks(member.size, member.name)) {
          consumed += chunk.length;
          yield chunk;
        }
      })();
      contents = await listDataArchive(body, dataCompression, limits);
      // the listing may stop early (its limits, a corrupt member): the digests need every byte
      await reader.skip(member.size - consumed + (member.size % 2), member.name);
    } else if (member.name.startsWith('_')) {
      // deb(5): members starting with "_" are reserved for extensions and may be ignored.
      await reader.skip(member.size + (member.size % 2), member.name);
    } else {
      throw invalid(`unexpected member ${JSON.stringify(member.name)} in .deb`);
    }
  }
  if (!control) throw invalid('.deb has no control.tar member');
  if (dataCompression === undefined) throw invalid('.deb has no data.tar member');
  await reader.drain();
  const file = (await reader.digests()) as DebFileDigests;
  return {
    name: controlValue(control.fields, 'Package')!,
    version: controlValue(control.fields, 'Version')!,
    architecture: controlValue(control.fields, 'Architecture')!,
    control: control.fields,
    file,
    controlCompression: control.compression,
    dataCompression,
    contents: contents!,
  };
}

function tarSuffix(memberName: string, base: string): string | undefined {
  if (!memberName.startsWith(base)) return undefined;
  const suffix = memberName.slice(base.length);
  return suffix in COMPRESSION_BY_SUFFIX ? suffix : undefined;
}

async function readMemberHeader(reader: HashingStreamReader): Promise<ArMember | undefined> {
  if (await reader.atEnd()) return undefined;
  const header = await reader.read(AR_HEADER_BYTES, 'ar member header');
  if (header.toString('latin1', 58, 60) !== '`\n') throw invalid('corrupt ar member header');
  // GNU ar terminates names with "/"; dpkg writes plain space-padded names.
  const name = header.toString('latin1', 0, 16).trimEnd().replace(/\/$/, '');
  const sizeText = header.toString('latin1', 48, 58).trim();
  if (!/^\d+$/.test(sizeText)) throw invalid('corrupt ar member size');
  return { name, size: Number(sizeText) };
}

async function readMemberBody(reader: HashingStreamReader, member: ArMember): Promise<Buffer> {
  const body = Buffer.from(await reader.read(member.size, member.name));
  // ar(5): members start on even offsets, odd-sized ones are followed by one "\n".
  if (member.size % 2 === 1) await reader.skip(1, member.name);
  return body;
}

/** The `control` file of a control.tar (names "./control" or "control"). */
async function controlFileFrom(tar: Buffer, maxControlFileBytes: number): Promise<string> {
  const entries = extract();
  const found = (async () => {
    let control: string | undefined;
    for await (const entry of entries) {
      const isControl = entry.header.type === 'file' && entry.header.name.replace(/^\.\//, '') === 'control';
      if (isControl && (entry.header.size ?? 0) > maxControlFileBytes) {
        throw new ArtifactFormatError(Code.decompressionLimit, `control file is larger than ${maxControlFileBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry) if (isControl) chunks.push(chunk as Buffer);
      if (isControl) {
        const bytes = Buffer.concat(chunks);
        // Policy §5.1: control files are UTF-8. Guessing another encoding would publish
        // text the maintainer never wrote, so the upload is refused instead.
        if (!isUtf8(bytes)) throw new ArtifactFormatError(Code.invalidControl, 'control file is not valid UTF-8 (Debian Policy §5.1); re-encode it as UTF-8 and rebuild the package');
        control = bytes.toString('utf8');
      }
    }
    return control;
  })();
  entries.end(tar);
  let control: string | undefined;
  try {
    control = await found;
  } catch (error) {
    if (error instanceof ArtifactFormatError) throw error;
    throw invalid(`control.tar is not a valid tar archive (${(error as Error).message})`);
  }
  if (control === undefined) throw invalid('control.tar has no control file');
  return control;
}
