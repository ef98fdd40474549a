import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import { IndexFile, type PublicationManifest, type PublicationManifestRef } from '@packyard/proto/packyard/repository/v1/events';

export interface BlobReader {
  get(key: string): Promise<Readable>;
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** manifests kept after their first read: a repository's rebuild reads every distribution's again */
const CACHED_MANIFESTS = 1024;
/** encoded entries remembered with their decoded file (about 150 bytes each); past this, forgotten all at once */
const KNOWN_ENTRIES = 500_000;

/** manifests kept as bytes to compare the next one of their distribution with (15 MB at 100,000 packages) */
const LINEAGE_BYTES = 64 * 1024 * 1024;

/** how far past the next entry of the previous manifest an entry is looked for before it is looked up by its encoding */
const COMPARED_AHEAD = 8;

/** PublicationManifest's fields, as tags (field number << 3 | length-delimited) */
const FILES_TAG = (1 << 3) | 2;
const REPOSITORY_FILES_TAG = (2 << 3) | 2;

/** a manifest as decoded: each entry's bytes (tag and length included) and its file, for the next one of its distribution */
export interface DecodedEntries {
  bytes: Buffer;
  starts: number[];
  ends: number[];
  files: IndexFile[];
}

/**
 * A manifest's files, where an entry encoded as one an earlier manifest had is that
 * manifest's object: one more package in 100,000 decodes one entry, and every unchanged
 * file stays the object the catalogue already served (see servedFiles). With `previous`,
 * the last manifest of the same distribution, entries are first compared with it byte for
 * byte in order (an insertion, a removal or a change is stepped over), which costs no
 * string per entry; the others are looked up in `known` by their encoding.
 */
export function decodeManifest(bytes: Uint8Array, known: Map<string, IndexFile>, previous?: DecodedEntries): { manifest: PublicationManifest; entries: DecodedEntries } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: DecodedEntries = { bytes: buffer, starts: [], ends: [], files: [] };
  const manifest: PublicationManifest = { files: [], repositoryFiles: [] };
  const reader = new BinaryReader(buffer);
  let next = 0;
  let indexOfPrevious: Map<IndexFile, number> | undefined;
  while (reader.pos < reader.len) {
    const entryStart = reader.pos;
    const tag = reader.uint32();
    if (tag !== FILES_TAG && tag !== REPOSITORY_FILES_TAG) {
      reader.skip(tag & 7);
      continue;
    }
    const length = reader.uint32();
    const start = reader.pos;
    const end = start + length;
    if (end > reader.len) throw new RangeError('publication manifest: an entry runs past the end');
    reader.pos = end;
    // the same entry as the previous manifest's next one, or as one a little after it (those between were removed or changed)
    let file: IndexFile | undefined;
    for (let at = next; previous && at < next + COMPARED_AHEAD; at++) {
      if (sameEntry(buffer, entryStart, end, previous, at)) {
        file = previous.files[at];
        next = at + 1;
        break;
      }
    }
    if (!file) {
      // the encoding itself is the key: read in place, no view of it made for an entry already known
      const key = buffer.toString('latin1', start, end);
      file = known.get(key);
      if (!file) {
        file = IndexFile.decode(buffer.subarray(start, end));
        if (known.size >= KNOWN_ENTRIES) known.clear();
        known.set(key, file);
      } else if (previous) {
        // found further on in the previous manifest: compare from there
        indexOfPrevious ??= new Map(previous.files.map((candidate, index) => [candidate, index]));
        const at = indexOfPrevious.get(file);
        if (at !== undefined && at >= next) next = at + 1;
      }
    }
    entries.starts.push(entryStart);
    entries.ends.push(end);
    entries.files.push(file);
    (tag === FILES_TAG ? manifest.files : manifest.repositoryFiles).push(file);
  }
  return { manifest, entries };
}

/** whether bytes `start`–`end` of `buffer` are the previous manifest's entry `at` */
const sameEntry = (buffer: Buffer, start: number, end: number, previous: DecodedEntries, at: number) =>
  at < previous.files.length && previous.ends[at] - previous.starts[at] === end - start && buffer.compare(previous.bytes, previous.starts[at], previous.ends[at], start, end) === 0;

/**
 * The file lists of published generations (IndexPublished names them by key and digest),
 * read from the blob store, checked against their SHA-256 and size before anything of
 * them is served, and kept by digest: a manifest never changes under its key.
 */
export class PublicationManifests {
  private readonly cache = new Map<string, Promise<PublicationManifest>>();
  /** encoded entry → its file, across manifests (see decodeManifest) */
  private readonly known = new Map<string, IndexFile>();
  /** per distribution (`lineage`), its manifest decoded last, least recently decoded first, at most LINEAGE_BYTES of them */
  private readonly lineages = new Map<string, DecodedEntries>();
  private lineageBytes = 0;

  constructor(private readonly blobs: BlobReader) {}

  /** `lineage` names the distribution the manifest is a generation of: a manifest is compared with its distribution's last one */
  manifest(ref: PublicationManifestRef, lineage: string): Promise<PublicationManifest> {
    const cached = this.cache.get(ref.sha256);
    if (cached) {
      // most recently used last: the first entry is the one to drop
      this.cache.delete(ref.sha256);
      this.cache.set(ref.sha256, cached);
      return cached;
    }
    const read = this.read(ref, lineage);
    read.catch(() => this.cache.delete(ref.sha256));
    this.cache.set(ref.sha256, read);
    if (this.cache.size > CACHED_MANIFESTS) this.cache.delete(this.cache.keys().next().value!);
    return read;
  }

  private async read(ref: PublicationManifestRef, lineage: string): Promise<PublicationManifest> {
    const bytes = await readAll(await this.blobs.get(ref.blobKey));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== ref.sha256 || bytes.length !== ref.size) {
      throw new Error(`publication manifest ${ref.blobKey} is not the one published (sha256 ${sha256}, ${bytes.length} bytes; expected ${ref.sha256}, ${ref.size} bytes)`);
    }
    const { manifest, entries } = decodeManifest(bytes, this.known, this.lineages.get(lineage));
    this.keepLineage(lineage, entries);
    return manifest;
  }

  private keepLineage(lineage: string, entries: DecodedEntries): void {
    const before = this.lineages.get(lineage);
    if (before) this.lineageBytes -= before.bytes.length;
    this.lineages.delete(lineage);
    this.lineages.set(lineage, entries);
    this.lineageBytes += entries.bytes.length;
    for (const [oldest, kept] of this.lineages) {
      if (this.lineageBytes <= LINEAGE_BYTES || oldest === lineage) break;
      this.lineages.delete(oldest);
      this.lineageBytes -= kept.bytes.length;
    }
  }
}
