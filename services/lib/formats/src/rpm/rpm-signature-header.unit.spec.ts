import { describe, expect, it } from 'vitest';
import { encodeRpmHeader } from '@packyard/testing/packages/rpm-crafting';
import { signedSignatureHeader } from './rpm-signature-header';

// rpm's own verdict on these headers is in the signing module's rpm-header-signature
// int spec (rpm -K); here the layout rpm's header loader insists on is pinned.

interface Entry { tag: number; type: number; offset: number; count: number }

function entriesOf(header: Buffer): { entries: Entry[]; data: Buffer } {
  const count = header.readUInt32BE(8);
  const data = header.subarray(16 + count * 16, 16 + count * 16 + header.readUInt32BE(12));
  const entries = Array.from({ length: count }, (_, i) => ({
    tag: header.readUInt32BE(16 + i * 16),
    type: header.readUInt32BE(20 + i * 16),
    offset: header.readInt32BE(24 + i * 16),
    count: header.readUInt32BE(28 + i * 16),
  }));
  return { entries, data };
}

const packet = (fill: number, length: number) => Buffer.alloc(length, fill);

describe('signedSignatureHeader', () => {
  const original = encodeRpmHeader([
    { tag: 273, type: 'string', value: 'ab'.repeat(32) },
    { tag: 274, type: 'stringArray', value: ['', 'file-signature'] },
    { tag: 1000, type: 'int32', value: [4242] },
  ]);

  it('opens with the region entry whose trailer spans the index, then the tags in order with the signature as RSA (268)', () => {
    const signed = signedSignatureHeader(original, packet(0xaa, 40));
    expect(signed.length % 8).toBe(0);
    const { entries, data } = entriesOf(signed);
    expect(entries.map((entry) => entry.tag)).toEqual([62, 268, 273, 274, 1000]);
    const [region, rsa, sha256, , size] = entries;
    expect(region).toEqual({ tag: 62, type: 7, offset: data.length - 16, count: 16 });
    expect([data.readUInt32BE(data.length - 16), data.readUInt32BE(data.length - 12), data.readInt32BE(data.length - 8)]).toEqual([62, 7, -5 * 16]);
    expect(rsa).toMatchObject({ type: 7, count: 40 });
    expect(data.subarray(rsa.offset, rsa.offset + 40)).toEqual(packet(0xaa, 40));
    expect(data.toString('latin1', sha256.offset, sha256.offset + 64)).toBe('ab'.repeat(32));
    expect(size.offset % 4).toBe(0);
    expect(data.readUInt32BE(size.offset)).toBe(4242);
  });

  it('replaces an earlier signature instead of adding a second', () => {
    const vendorSigned = encodeRpmHeader([
      { tag: 268, type: 'bin', value: packet(0xaa, 40) },
      { tag: 273, type: 'string', value: 'ab'.repeat(32) },
      { tag: 1005, type: 'bin', value: packet(0xbb, 64) },
    ]);
    const { entries, data } = entriesOf(signedSignatureHeader(vendorSigned, packet(0xcc, 48)));
    expect(entries.map((entry) => entry.tag)).toEqual([62, 268, 273]);
    expect(data.subarray(entries[1].offset, entries[1].offset + 48)).toEqual(packet(0xcc, 48));
  });

  it('takes the room for the signature from the reserved space, keeping the size', () => {
    const reserving = encodeRpmHeader([
      { tag: 1000, type: 'int32', value: [4242] },
      { tag: 1008, type: 'bin', value: Buffer.alloc(4096) },
    ]);
    const padded = reserving.length + ((8 - (reserving.length % 8)) % 8);
    expect(signedSignatureHeader(reserving, packet(0xaa, 300)).length).toBe(padded);
  });
});
