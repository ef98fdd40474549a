/**
 * Raw rpm bytes for parser tests: a lead, a signature header and a main header encoded by
 * hand, so tests can state exactly which (possibly hostile) values the parser meets.
 */
export type CraftedTag =
  | { readonly tag: number; readonly type: 'string'; readonly value: string; readonly encoding?: 'latin1' }
  | { readonly tag: number; readonly type: 'stringArray'; readonly value: readonly string[]; readonly encoding?: 'latin1' }
  | { readonly tag: number; readonly type: 'int32'; readonly value: readonly number[] }
  | { readonly tag: number; readonly type: 'int16'; readonly value: readonly number[] }
  | { readonly tag: number; readonly type: 'bin'; readonly value: Buffer };

const TYPE_CODES = { int16: 3, int32: 4, string: 6, bin: 7, stringArray: 8 } as const;
const ALIGNMENT = { int16: 2, int32: 4, string: 1, bin: 1, stringArray: 1 } as const;

/** An rpm header structure (magic, index, data store) holding `tags`. */
export function encodeRpmHeader(tags: readonly CraftedTag[], declared: { entries?: number; dataBytes?: number } = {}): Buffer {
  const index: Buffer[] = [];
  let data = Buffer.alloc(0);
  for (const tag of tags) {
    const padding = (ALIGNMENT[tag.type] - (data.length % ALIGNMENT[tag.type])) % ALIGNMENT[tag.type];
    data = Buffer.concat([data, Buffer.alloc(padding)]);
    let bytes: Buffer;
    let count: number;
    if (tag.type === 'string') [bytes, count] = [Buffer.from(`${tag.value}\0`, tag.encoding), 1];
    else if (tag.type === 'bin') [bytes, count] = [tag.value, tag.value.length];
    else if (tag.type === 'stringArray') [bytes, count] = [Buffer.from(tag.value.map((value) => `${value}\0`).join(''), tag.encoding), tag.value.length];
    else {
      const width = tag.type === 'int32' ? 4 : 2;
      bytes = Buffer.alloc(width * tag.value.length);
      tag.value.forEach((value, i) => (width === 4 ? bytes.writeUInt32BE(value, i * 4) : bytes.writeUInt16BE(value, i * 2)));
      count = tag.value.length;
    }
    const entry = Buffer.alloc(16);
    entry.writeUInt32BE(tag.tag, 0);
    entry.writeUInt32BE(TYPE_CODES[tag.type], 4);
    entry.writeUInt32BE(data.length, 8);
    entry.writeUInt32BE(count, 12);
    index.push(entry);
    data = Buffer.concat([data, bytes]);
  }
  const preamble = Buffer.from([0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  preamble.writeUInt32BE(declared.entries ?? tags.length, 8);
  preamble.writeUInt32BE(declared.dataBytes ?? data.length, 12);
  return Buffer.concat([preamble, ...index, data]);
}

export function rpmLead(name: string, type: 'binary' | 'source' = 'binary'): Buffer {
  const lead = Buffer.alloc(96);
  Buffer.from([0xed, 0xab, 0xee, 0xdb, 3, 0]).copy(lead);
  lead.writeUInt16BE(type === 'source' ? 1 : 0, 6);
  lead.write(name.slice(0, 65), 10, 'latin1');
  lead.writeUInt16BE(5, 78); // signature type: header-style signature
  return lead;
}

export interface CraftRpmOptions {
  readonly name?: string;
  readonly leadType?: 'binary' | 'source';
  readonly tags?: readonly CraftedTag[];
  readonly mainHeader?: Buffer;
  readonly payload?: Buffer;
}

/** A complete .rpm: lead, 8-byte aligned signature header, main header, payload bytes. */
export function craftRpm(options: CraftRpmOptions = {}): Buffer {
  const name = options.name ?? 'crafted';
  const signature = encodeRpmHeader([{ tag: 1007, type: 'int32', value: [1234] }]);
  const padding = Buffer.alloc((8 - (signature.length % 8)) % 8);
  const main = options.mainHeader ?? encodeRpmHeader(options.tags ?? minimalRpmTags(name));
  return Buffer.concat([rpmLead(name, options.leadType), signature, padding, main, options.payload ?? Buffer.from('payload')]);
}

export const minimalRpmTags = (name = 'crafted'): CraftedTag[] => [
  { tag: 1000, type: 'string', value: name },
  { tag: 1001, type: 'string', value: '1.0' },
  { tag: 1002, type: 'string', value: '1' },
  { tag: 1004, type: 'string', value: 'crafted package' },
  { tag: 1022, type: 'string', value: 'noarch' },
  { tag: 1044, type: 'string', value: `${name}-1.0-1.src.rpm` },
];

/** Inputs a hostile uploader could send; each must be refused by the .rpm parser. */
export const maliciousRpms = {
  /** A main header claiming four billion index entries (rpm would try to allocate them). */
  absurdIndexCount: () => craftRpm({ mainHeader: encodeRpmHeader(minimalRpmTags(), { entries: 0xffffffff }) }),
  /** A main header claiming 1 GiB of data. */
  absurdDataSize: () => craftRpm({ mainHeader: encodeRpmHeader(minimalRpmTags(), { dataBytes: 1 << 30 }) }),
  /** A file cut off inside the main header. */
  truncatedHeader: () => craftRpm().subarray(0, 96 + 40 + 30),
  /** A lead saying source package over a binary header (one naming its SOURCERPM). */
  sourceLeadOverBinaryHeader: () => craftRpm({ leadType: 'source', tags: minimalRpmTags() }),
  /** A tag whose offset points far outside the data store. */
  offsetOutsideHeader: () => {
    const header = encodeRpmHeader(minimalRpmTags());
    header.writeUInt32BE(0x7fffffff, 16 + 8);
    return craftRpm({ mainHeader: header });
  },
};
