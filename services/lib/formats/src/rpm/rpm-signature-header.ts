import { ArtifactFormatError, ArtifactFormatErrorCode as Code } from '../common/artifact-format.error';
import { HEADER_MAGIC, HEADER_PREAMBLE_BYTES } from './rpm-header.reader';

// Signing an .rpm the way `rpmsign --addsign` does (rpm's sign/rpmgensig.c): an OpenPGP
// signature over the main header (magic through data store, which is what rpm calls the
// immutable region) goes into the signature header as RPMSIGTAG_RSA. The main header and
// the payload stay byte for byte, so the digests rpm keeps in the signature header (SHA-1
// and SHA-256 of the header, MD5 of header+payload, sizes) stay valid and are kept.

export const RPM_LEAD_BYTES = 96;
const INDEX_ENTRY_BYTES = 16;

const SigTag = {
  /** RPMTAG_HEADERSIGNATURES: the region tag opening every signature header */
  region: 62,
  dsa: 267,
  rsa: 268,
  /** rpm 6's RPMSIGTAG_OPENPGP (any number of OpenPGP signatures) */
  openpgp: 278,
  /** legacy header+payload signatures */
  pgp: 1002,
  gpg: 1005,
  reservedSpace: 1008,
} as const;

/**
 * Every OpenPGP signature the uploader's file carries is replaced by the repository's:
 * rpm checks each signature it finds, and one by a key the client never imported makes
 * `rpm -K` and dnf's gpgcheck fail with NOKEY.
 */
const REPLACED_SIGNATURES: ReadonlySet<number> = new Set([SigTag.dsa, SigTag.rsa, SigTag.openpgp, SigTag.pgp, SigTag.gpg]);

const Type = { char: 1, int8: 2, int16: 3, int32: 4, int64: 5, string: 6, bin: 7, stringArray: 8, i18nString: 9 } as const;
const ALIGNMENT: Record<number, number> = { [Type.int16]: 2, [Type.int32]: 4, [Type.int64]: 8 };
const WIDTH: Record<number, number> = { [Type.char]: 1, [Type.int8]: 1, [Type.bin]: 1, [Type.int16]: 2, [Type.int32]: 4, [Type.int64]: 8 };

interface SignatureEntry {
  readonly tag: number;
  readonly type: number;
  readonly count: number;
  readonly data: Buffer;
}

const invalid = (message: string) => new ArtifactFormatError(Code.invalidRpm, message);

/**
 * What replaces the first `mainHeader.start` bytes of a package once `signHeader` has signed
 * its main header: the lead, then the signature header carrying that signature. The rest of
 * the file follows unchanged from `mainHeader.start`.
 */
export async function signRpmHeaders(
  prefix: Buffer,
  mainHeader: { start: number; end: number },
  signHeader: (header: Buffer) => Promise<Uint8Array>,
): Promise<Buffer> {
  const parts = splitRpmHeaders(prefix, mainHeader);
  return Buffer.concat([parts.lead, signedSignatureHeader(parts.signatureHeader, await signHeader(parts.mainHeader))]);
}

/** The three parts of an .rpm before its payload, cut from the file's first `mainHeader.end` bytes. */
export function splitRpmHeaders(prefix: Buffer, mainHeader: { start: number; end: number }): { lead: Buffer; signatureHeader: Buffer; mainHeader: Buffer } {
  if (prefix.length < mainHeader.end) throw invalid('the package ends inside its headers');
  const signatureHeader = prefix.subarray(RPM_LEAD_BYTES, RPM_LEAD_BYTES + headerLength(prefix, RPM_LEAD_BYTES));
  return { lead: prefix.subarray(0, RPM_LEAD_BYTES), signatureHeader, mainHeader: prefix.subarray(mainHeader.start, mainHeader.end) };
}

function headerLength(bytes: Buffer, at: number): number {
  if (bytes.length < at + HEADER_PREAMBLE_BYTES || !bytes.subarray(at, at + 4).equals(HEADER_MAGIC)) throw invalid('signature header has no header magic');
  return HEADER_PREAMBLE_BYTES + bytes.readUInt32BE(at + 8) * INDEX_ENTRY_BYTES + bytes.readUInt32BE(at + 12);
}

/**
 * The signature header with `headerSignature` (one OpenPGP signature packet over the main
 * header) as RPMSIGTAG_RSA in place of any earlier OpenPGP signature, padded to the 8-byte
 * boundary the main header starts on. Like rpmsign, the new signature takes its room from
 * RPMSIGTAG_RESERVEDSPACE where the package has it, so the file keeps its size.
 */
export function signedSignatureHeader(signatureHeader: Buffer, headerSignature: Uint8Array): Buffer {
  if (headerSignature.length === 0) throw new Error('empty header signature');
  const originalLength = signatureHeader.length + ((8 - (signatureHeader.length % 8)) % 8);
  const added: SignatureEntry = { tag: SigTag.rsa, type: Type.bin, count: headerSignature.length, data: Buffer.from(headerSignature) };
  let entries = [...readEntries(signatureHeader).filter((entry) => !REPLACED_SIGNATURES.has(entry.tag)), added].sort((a, b) => a.tag - b.tag);
  let encoded = encodeSignatureHeader(entries);
  // alignment can move by a few bytes as the reserved space shrinks, hence a second pass
  for (let pass = 0; pass < 3 && encoded.length !== originalLength; pass++) {
    const reserved = entries.find((entry) => entry.tag === SigTag.reservedSpace);
    if (!reserved) break;
    const count = reserved.count - (encoded.length - originalLength);
    if (count <= 0) break;
    entries = entries.map((entry) => (entry === reserved ? { ...reserved, count, data: Buffer.alloc(count) } : entry));
    encoded = encodeSignatureHeader(entries);
  }
  return encoded;
}

function readEntries(header: Buffer): SignatureEntry[] {
  const entries = header.readUInt32BE(8);
  const dataBytes = header.readUInt32BE(12);
  const dataStart = HEADER_PREAMBLE_BYTES + entries * INDEX_ENTRY_BYTES;
  if (header.length !== dataStart + dataBytes) throw invalid('signature header length disagrees with its preamble');
  const data = header.subarray(dataStart);
  const result: SignatureEntry[] = [];
  for (let i = 0; i < entries; i++) {
    const at = HEADER_PREAMBLE_BYTES + i * INDEX_ENTRY_BYTES;
    const tag = header.readUInt32BE(at);
    const type = header.readUInt32BE(at + 4);
    // the region's offset counts back from the end in rpm's trailer; it is rebuilt anyway
    if (tag === SigTag.region) continue;
    const offset = header.readUInt32BE(at + 8);
    const count = header.readUInt32BE(at + 12);
    const length = dataLength(data, type, offset, count, tag);
    result.push({ tag, type, count, data: data.subarray(offset, offset + length) });
  }
  return result;
}

function dataLength(data: Buffer, type: number, offset: number, count: number, tag: number): number {
  const width = WIDTH[type];
  if (width !== undefined) {
    if (offset + width * count > data.length) throw invalid(`signature tag ${tag} runs past the header`);
    return width * count;
  }
  if (type !== Type.string && type !== Type.stringArray && type !== Type.i18nString) throw invalid(`signature tag ${tag} has unknown type ${type}`);
  let end = offset;
  for (let i = 0; i < count; i++) {
    const nul = data.indexOf(0, end);
    if (nul < 0) throw invalid(`signature tag ${tag} has an unterminated string`);
    end = nul + 1;
  }
  return end - offset;
}

/** Index sorted by tag behind the region entry; data aligned per type; the region trailer last, as rpm writes it. */
function encodeSignatureHeader(entries: readonly SignatureEntry[]): Buffer {
  const indexCount = entries.length + 1;
  const index = Buffer.alloc(indexCount * INDEX_ENTRY_BYTES);
  const pieces: Buffer[] = [];
  let size = 0;
  entries.forEach((entry, i) => {
    const align = ALIGNMENT[entry.type] ?? 1;
    const padding = (align - (size % align)) % align;
    if (padding) pieces.push(Buffer.alloc(padding));
    size += padding;
    writeEntry(index, i + 1, entry.tag, entry.type, size, entry.count);
    pieces.push(entry.data);
    size += entry.data.length;
  });
  // the region trailer: an index entry whose negative offset spans the whole index
  const trailer = Buffer.alloc(INDEX_ENTRY_BYTES);
  writeEntry(trailer, 0, SigTag.region, Type.bin, -indexCount * INDEX_ENTRY_BYTES, INDEX_ENTRY_BYTES);
  writeEntry(index, 0, SigTag.region, Type.bin, size, INDEX_ENTRY_BYTES);
  pieces.push(trailer);
  size += INDEX_ENTRY_BYTES;
  const preamble = Buffer.alloc(HEADER_PREAMBLE_BYTES);
  HEADER_MAGIC.copy(preamble);
  preamble.writeUInt32BE(indexCount, 8);
  preamble.writeUInt32BE(size, 12);
  const header = Buffer.concat([preamble, index, ...pieces]);
  return Buffer.concat([header, Buffer.alloc((8 - (header.length % 8)) % 8)]);
}

function writeEntry(target: Buffer, slot: number, tag: number, type: number, offset: number, count: number): void {
  const at = slot * INDEX_ENTRY_BYTES;
  target.writeUInt32BE(tag, at);
  target.writeUInt32BE(type, at + 4);
  target.writeInt32BE(offset, at + 8);
  target.writeUInt32BE(count, at + 12);
}
