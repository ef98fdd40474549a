import { describe, expect, it } from 'vitest';
import { PublicationManifest, type IndexFile } from '@packyard/proto/packyard/repository/v1/events';
import { createHash } from 'node:crypto';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { decodeManifest, encodedAlike, PublicationManifests } from './publication-manifests';

const file = (path: string, sha256: string, pkg = true): IndexFile => ({ path, blobKey: `pool/sha256/${sha256}`, size: 100, sha256, contentType: '', package: pkg });
const encoded = (manifest: Omit<PublicationManifest, 'parts'>) => PublicationManifest.encode({ ...manifest, parts: [] }).finish();
/** an entry's fields, read through its getters */
const fields = ({ path, blobKey, size, sha256, contentType, package: pkg }: IndexFile): IndexFile => ({ path, blobKey, size, sha256, contentType, package: pkg });
const read = (manifest: PublicationManifest) => ({ files: manifest.files.map(fields), repositoryFiles: manifest.repositoryFiles.map(fields), parts: manifest.parts });

describe('decodeManifest', () => {
  it('reads what the publisher wrote: the files, then the repository files', () => {
    const manifest = { files: [file('dists/noble/InRelease', 'a1', false), file('pool/main/h/hello/hello_1.0_all.deb', 'b2')], repositoryFiles: [file('gpg.key', 'c3', false)] };
    expect(read(decodeManifest(encoded(manifest)))).toEqual({ ...manifest, parts: [] });
  });

  it('reads a manifest whose pool entries were appended as encodings of their own (the publisher joins them so)', () => {
    const pool = [file('pool/a.deb', 'e5'), file('pool/b.deb', 'f6')];
    const bytes = Buffer.concat([encoded({ files: [file('dists/noble/Release', 'a1', false)], repositoryFiles: [] }), ...pool.map((entry) => encoded({ files: [entry], repositoryFiles: [] })), encoded({ files: [], repositoryFiles: [file('keyring.gpg', 'c3', false)] })]);
    expect(read(decodeManifest(bytes))).toEqual(PublicationManifest.decode(bytes));
  });

  it('reads entries another encoder might write: a path longer than 127 bytes, and fields out of order', () => {
    const long = file(`pool/main/${'l'.repeat(200)}/long_1.0_all.deb`, 'a2');
    // blob_key, then path: the path is not where the publisher puts it, so the entry is decoded whole
    const reordered = new BinaryWriter().uint32(18).string('pool/sha256/b3').uint32(10).string('pool/main/r/r_1.0_all.deb').uint32(24).int64(7).finish();
    const bytes = Buffer.concat([encoded({ files: [long], repositoryFiles: [] }), new BinaryWriter().uint32(10).bytes(reordered).finish()]);
    expect(read(decodeManifest(bytes)).files).toEqual([long, { path: 'pool/main/r/r_1.0_all.deb', blobKey: 'pool/sha256/b3', size: 7, sha256: '', contentType: '', package: false }]);
  });
});

describe('encodedAlike', () => {
  it('tells an entry a re-written part lists again from one that changed, by their encodings', () => {
    const entries = [file('pool/a.rpm', 'a1'), file('pool/b.rpm', 'b2')];
    const before = decodeManifest(encoded({ files: entries, repositoryFiles: [] })).files;
    // the part after one more package: the same two entries at other offsets, one entry more before them
    const after = decodeManifest(encoded({ files: [file('pool/0.rpm', 'c3'), ...entries], repositoryFiles: [] })).files;
    const resigned = decodeManifest(encoded({ files: [{ ...entries[0], size: 101 }], repositoryFiles: [] })).files;
    expect(encodedAlike(before[0], after[1])).toBe(true);
    expect(encodedAlike(before[1], after[2])).toBe(true);
    expect(encodedAlike(before[0], after[0])).toBe(false);
    expect(encodedAlike(before[0], resigned[0])).toBe(false);
    // entries not read from a manifest are compared field by field by the caller
    expect(encodedAlike(entries[0], after[1])).toBe(false);
  });
});

describe('PublicationManifests', () => {
  const blobs = new Map<string, Buffer>();
  const reads: string[] = [];
  const reader = { getBytes: async (key: string) => (reads.push(key), blobs.get(key)!) };
  const stored = (key: string, bytes: Uint8Array) => {
    blobs.set(key, Buffer.from(bytes));
    return { blobKey: key, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
  };
  const part = (key: string, files: IndexFile[]) => stored(key, encoded({ files, repositoryFiles: [] }));
  const pool = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => file(`pool/p${from + i}.deb`, `p${from + i}`));

  it('lists a manifest’s own files, then its parts’ in order, and reads a part once for every generation that names it', async () => {
    const first = part('part-1', pool(0, 3));
    const second = part('part-2', pool(3, 5));
    const changed = part('part-2b', [...pool(3, 5), file('pool/new.deb', 'n1')]);
    const generation = (key: string, inRelease: string, parts: typeof first[]) =>
      stored(key, PublicationManifest.encode({ files: [file('dists/noble/InRelease', inRelease, false)], repositoryFiles: [file('keyring.gpg', 'k', false)], parts }).finish());
    const manifests = new PublicationManifests(reader);
    const one = await manifests.manifest(generation('m1', 'a1', [first, second]));
    const two = await manifests.manifest(generation('m2', 'a2', [first, changed]));
    const paths = (sources: typeof one.sources) => sources.map((source) => source.map((entry) => entry.path));
    expect(paths(one.sources)).toEqual([['dists/noble/InRelease'], pool(0, 3).map((entry) => entry.path), pool(3, 5).map((entry) => entry.path)]);
    expect(paths(two.sources)).toEqual([['dists/noble/InRelease'], pool(0, 3).map((entry) => entry.path), [...pool(3, 5).map((entry) => entry.path), 'pool/new.deb']]);
    expect(two.repositoryFiles.map((entry) => entry.path)).toEqual(['keyring.gpg']);
    expect(reads).toEqual(['m1', 'part-1', 'part-2', 'm2', 'part-2b']);
    // a part both generations name is the same list: a layer keeps its served files without going through it
    expect(two.sources[1]).toBe(one.sources[1]);
  });

  it('refuses a part whose bytes are not the ones named', async () => {
    const named = part('part-x', pool(0, 2));
    blobs.set('part-x', Buffer.from(encoded({ files: pool(5, 7), repositoryFiles: [] })));
    const manifest = stored('m3', PublicationManifest.encode({ files: [], repositoryFiles: [], parts: [named] }).finish());
    await expect(new PublicationManifests(reader).manifest(manifest)).rejects.toThrow(/part-x is not the one published/);
  });
});
