import { describe, expect, it } from 'vitest';
import { PublicationManifest, type IndexFile } from '@packyard/proto/packyard/repository/v1/events';
import { decodeManifest } from './publication-manifests';

const file = (path: string, sha256: string, pkg = true): IndexFile => ({ path, blobKey: `pool/sha256/${sha256}`, size: 100, sha256, contentType: '', package: pkg });
const encoded = (manifest: PublicationManifest) => PublicationManifest.encode(manifest).finish();

describe('decodeManifest', () => {
  it('reads what the publisher wrote: the files, then the repository files', () => {
    const manifest = { files: [file('dists/noble/InRelease', 'a1', false), file('pool/main/h/hello/hello_1.0_all.deb', 'b2')], repositoryFiles: [file('gpg.key', 'c3', false)] };
    expect(decodeManifest(encoded(manifest), new Map()).manifest).toEqual(manifest);
  });

  it('gives a file encoded as in an earlier manifest that manifest’s object, and decodes only what changed', () => {
    const known = new Map<string, IndexFile>();
    const unchanged = file('pool/main/h/hello/hello_1.0_all.deb', 'b2');
    const first = decodeManifest(encoded({ files: [file('dists/noble/InRelease', 'a1', false), unchanged], repositoryFiles: [] }), known).manifest;
    const second = decodeManifest(encoded({ files: [file('dists/noble/InRelease', 'a9', false), unchanged, file('pool/main/n/new/new_1.0_all.deb', 'd4')], repositoryFiles: [] }), known).manifest;
    expect(second.files[1]).toBe(first.files[1]);
    expect(second.files[0]).not.toBe(first.files[0]);
    expect(second.files.map((f) => f.sha256)).toEqual(['a9', 'b2', 'd4']);
  });

  it('reads a manifest whose pool entries were appended as encodings of their own (the publisher joins them so)', () => {
    const pool = [file('pool/a.deb', 'e5'), file('pool/b.deb', 'f6')];
    const bytes = Buffer.concat([encoded({ files: [file('dists/noble/Release', 'a1', false)], repositoryFiles: [] }), ...pool.map((entry) => encoded({ files: [entry], repositoryFiles: [] })), encoded({ files: [], repositoryFiles: [file('keyring.gpg', 'c3', false)] })]);
    expect(decodeManifest(bytes, new Map()).manifest).toEqual(PublicationManifest.decode(bytes));
  });

  it('compared with its distribution’s previous manifest, finds every entry as it is after insertions, removals and changes, and reuses the unchanged ones', () => {
    const pool = Array.from({ length: 40 }, (_, i) => file(`pool/p${i}.deb`, `s${i}`));
    const before = { files: [file('dists/noble/InRelease', 'a1', false), ...pool], repositoryFiles: [file('keyring.gpg', 'k1', false)] };
    const previous = decodeManifest(encoded(before), new Map());
    // one inserted at the front, two removed in a row, one changed, one appended, a new key
    const after = {
      files: [file('dists/noble/InRelease', 'a2', false), file('pool/new.deb', 'n1'), ...pool.slice(0, 10), ...pool.slice(12, 20), file('pool/p20.deb', 'changed'), ...pool.slice(21), file('pool/last.deb', 'n2')],
      repositoryFiles: [file('keyring.gpg', 'k2', false)],
    };
    // a fresh `known`: only the comparison with the previous manifest can find the unchanged objects
    const decoded = decodeManifest(encoded(after), new Map(), previous.entries).manifest;
    expect(decoded).toEqual(after);
    const reused = decoded.files.filter((entry) => previous.manifest.files.includes(entry)).map((entry) => entry.path);
    expect(reused).toEqual([...pool.slice(0, 10), ...pool.slice(12, 20), ...pool.slice(21)].map((entry) => entry.path));
  });
});
