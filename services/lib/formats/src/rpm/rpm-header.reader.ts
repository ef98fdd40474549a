import { isUtf8 } from 'node:buffer';
import { ArtifactFormatError, ArtifactFormatErrorCode as Code } from '../common/artifact-format.error';

/** rpm's on-disk header structure: magic, index entries, then the data store. */
export const HEADER_MAGIC = Buffer.from([0x8e, 0xad, 0xe8, 0x01]);
export const HEADER_PREAMBLE_BYTES = 16;
const INDEX_ENTRY_BYTES = 16;

const enum TagType {
  Char = 1,
  Int8 = 2,
  Int16 = 3,
  Int32 = 4,
  Int64 = 5,
  String = 6,
  Binary = 7,
  StringArray = 8,
  I18nString = 9,
}

export interface HeaderLimits {
  readonly maxIndexEntries: number;
  readonly maxDataBytes: number;
}

const invalid = (message: string) => new ArtifactFormatError(Code.invalidRpm, message);

/** Entry count and data size declared by a header preamble, checked against the limits. */
export function readHeaderPreamble(preamble: Buffer, limits: HeaderLimits, what: string): { entries: number; dataBytes: number } {
  if (!preamble.subarray(0, 4).equals(HEADER_MAGIC)) throw invalid(`${what} has no header magic`);
  const entries = preamble.readUInt32BE(8);
  const dataBytes = preamble.readUInt32BE(12);
  if (entries === 0 || entries > limits.maxIndexEntries) throw invalid(`${what} declares ${entries} index entries (limit ${limits.maxIndexEntries})`);
  if (dataBytes > limits.maxDataBytes) throw invalid(`${what} declares ${dataBytes} data bytes (limit ${limits.maxDataBytes})`);
  return { entries, dataBytes };
}

export const headerBodyBytes = (entries: number, dataBytes: number) => entries * INDEX_ENTRY_BYTES + dataBytes;

interface IndexEntry {
  readonly type: number;
  readonly offset: number;
  readonly count: number;
}

/**
 * Typed, bounds-checked access to one header's tags. Every offset and count comes from
 * the uploader, so each read checks it stays inside the data store.
 */
export class RpmHeader {
  private readonly index = new Map<number, IndexEntry>();
  private readonly data: Buffer;

  constructor(body: Buffer, entries: number, private readonly what: string) {
    this.data = body.subarray(entries * INDEX_ENTRY_BYTES);
    for (let i = 0; i < entries; i++) {
      const at = i * INDEX_ENTRY_BYTES;
      const tag = body.readUInt32BE(at);
      const entry = { type: body.readUInt32BE(at + 4), offset: body.readUInt32BE(at + 8), count: body.readUInt32BE(at + 12) };
      if (entry.offset > this.data.length) throw invalid(`${what} tag ${tag} points outside the header`);
      if (entry.count > this.data.length + 1) throw invalid(`${what} tag ${tag} declares an impossible count`);
      this.index.set(tag, entry);
    }
  }

  has(tag: number): boolean {
    return this.index.has(tag);
  }

  string(tag: number): string | undefined {
    const entry = this.index.get(tag);
    if (!entry) return undefined;
    if (entry.type !== TagType.String && entry.type !== TagType.I18nString && entry.type !== TagType.StringArray) {
      throw invalid(`${this.what} tag ${tag} is not a string`);
    }
    // For translated strings the first value is the untranslated ("C") one.
    return this.strings(entry, 1)[0];
  }

  stringArray(tag: number): string[] {
    const entry = this.index.get(tag);
    if (!entry) return [];
    if (entry.type !== TagType.StringArray && entry.type !== TagType.String) throw invalid(`${this.what} tag ${tag} is not a string array`);
    return this.strings(entry, entry.count);
  }

  numbers(tag: number): number[] {
    const entry = this.index.get(tag);
    if (!entry) return [];
    const width = { [TagType.Char]: 1, [TagType.Int8]: 1, [TagType.Int16]: 2, [TagType.Int32]: 4, [TagType.Int64]: 8 }[entry.type];
    if (!width) throw invalid(`${this.what} tag ${tag} is not numeric`);
    if (entry.offset + entry.count * width > this.data.length) throw invalid(`${this.what} tag ${tag} runs past the header`);
    const values: number[] = [];
    for (let i = 0; i < entry.count; i++) {
      const at = entry.offset + i * width;
      values.push(
        width === 1 ? this.data.readUInt8(at)
        : width === 2 ? this.data.readUInt16BE(at)
        : width === 4 ? this.data.readUInt32BE(at)
        : Number(this.data.readBigUInt64BE(at)),
      );
    }
    return values;
  }

  number(tag: number): number | undefined {
    return this.numbers(tag)[0];
  }

  private strings(entry: IndexEntry, count: number): string[] {
    const values: string[] = [];
    let at = entry.offset;
    for (let i = 0; i < count; i++) {
      const end = this.data.indexOf(0, at);
      if (end < 0) throw invalid(`${this.what} has an unterminated string`);
      values.push(headerText(this.data.subarray(at, end)));
      at = end + 1;
    }
    return values;
  }
}

/**
 * A header string as createrepo_c puts it into repodata: UTF-8 when it is valid UTF-8;
 * otherwise (older packages were often built in ISO-8859-1 or -2) read as Latin-1 the way
 * createrepo_c's cr_latin1_to_utf8 does, keeping ASCII and U+00C0-U+00FF and dropping the
 * bytes 0x80-0xBF. A dependency name then reads the same here as in every repository
 * createrepo_c made, which is what lets a Requires meet its Provides.
 */
export function headerText(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let text = '';
  for (const byte of bytes) if (byte < 0x80 || byte >= 0xc0) text += String.fromCharCode(byte);
  return text;
}
