import { crc32 } from 'node:zlib';
import { xz } from './index-file';

/** One xz block (its header, LZMA2 data, padding and check) and the sizes the stream's index records of it. */
interface XzBlock {
  readonly bytes: Buffer;
  /** the block without its padding, as the index counts it */
  readonly unpaddedSize: number;
  readonly uncompressedSize: number;
}

const STREAM_HEADER_SIZE = 12;
const STREAM_FOOTER_SIZE = 12;
const INDEX_INDICATOR = 0x00;

/** the blocks compressed so far, by the plain bytes they hold (a cached index block is the same Buffer from build to build) */
const compressed = new WeakMap<Buffer, Promise<XzBlock>>();

/**
 * One `.xz` stream of several blocks, one per plain part (the xz file format, §3: a
 * stream is a header, any number of independently compressed blocks, an index of their
 * sizes and a footer). Every decoder reads a multi-block stream (it is what `xz -T`
 * writes), and a part compressed once is reused for as long as its Buffer lives: with the
 * gzip block cache's parts, one more package recompresses one block, not the whole index.
 */
export async function xzInBlocks(parts: readonly Buffer[]): Promise<Buffer> {
  if (parts.length === 0) return xz(Buffer.alloc(0));
  const blocks = await Promise.all(parts.map(blockOf));
  const header = await streamHeader();
  const records = blocks.flatMap((block) => [...varint(block.unpaddedSize), ...varint(block.uncompressedSize)]);
  const index = padded(Buffer.from([INDEX_INDICATOR, ...varint(blocks.length), ...records]));
  const indexWithCrc = Buffer.concat([index, uint32(crc32(index))]);
  const flags = header.subarray(6, 8);
  const backwardSize = uint32(indexWithCrc.length / 4 - 1);
  const footerBody = Buffer.concat([backwardSize, flags]);
  const footer = Buffer.concat([uint32(crc32(footerBody)), footerBody, Buffer.from('YZ', 'latin1')]);
  return Buffer.concat([header, ...blocks.map((block) => block.bytes), indexWithCrc, footer]);
}

function blockOf(plain: Buffer): Promise<XzBlock> {
  let block = compressed.get(plain);
  if (!block) {
    block = xz(plain).then(onlyBlock);
    compressed.set(plain, block);
  }
  return block;
}

/** the stream header liblzma writes with our filter and check: the same for every stream */
let header: Promise<Buffer> | undefined;
const streamHeader = () => (header ??= xz(Buffer.alloc(0)).then((stream) => stream.subarray(0, STREAM_HEADER_SIZE)));

/** the single block of a one-block stream, with the sizes its index records */
function onlyBlock(stream: Buffer): XzBlock {
  const footer = stream.subarray(stream.length - STREAM_FOOTER_SIZE);
  const indexSize = (footer.readUInt32LE(4) + 1) * 4;
  const indexStart = stream.length - STREAM_FOOTER_SIZE - indexSize;
  const index = stream.subarray(indexStart);
  let offset = 1;
  const [count, afterCount] = readVarint(index, offset);
  if (index[0] !== INDEX_INDICATOR || count !== 1) throw new Error(`expected one xz block, found ${count}`);
  offset = afterCount;
  const [unpaddedSize, afterUnpadded] = readVarint(index, offset);
  const [uncompressedSize] = readVarint(index, afterUnpadded);
  return { bytes: Buffer.from(stream.subarray(STREAM_HEADER_SIZE, indexStart)), unpaddedSize, uncompressedSize };
}

/** xz's multibyte integers: 7 bits a byte, least significant first */
function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value >= 0x80) {
    bytes.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  bytes.push(value);
  return bytes;
}

function readVarint(bytes: Buffer, offset: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[offset++];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, offset];
    scale *= 0x80;
  }
}

const padded = (bytes: Buffer) => Buffer.concat([bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4)]);

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value >>> 0);
  return bytes;
}
