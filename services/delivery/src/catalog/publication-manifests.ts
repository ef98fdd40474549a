import { createHash } from 'node:crypto';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import type { BlobStore } from '@packyard/platform/blobs/blob-store.port';
import { RecentlyUsed } from '@packyard/platform/runtime/recently-used';
import { IndexFile, PublicationManifestRef, type PublicationManifest } from '@packyard/proto/packyard/repository/v1/events';

export type BlobReader = Pick<BlobStore, 'getBytes'>;

/** manifests kept after their first read: a repository's rebuild reads every distribution's again */
const CACHED_MANIFESTS = 1024;
/** manifest parts kept after their first read (about 1,000 files each); generations share most of theirs */
const CACHED_PARTS = 1024;

/** PublicationManifest's fields, as tags (field number << 3 | length-delimited) */
const FILES_TAG = (1 << 3) | 2;
const REPOSITORY_FILES_TAG = (2 << 3) | 2;
const PARTS_TAG = (3 << 3) | 2;

/** IndexFile's first field, `path`, as a tag (field number 1 << 3 | length-delimited) */
const PATH_TAG = (1 << 3) | 2;

/**
 * A manifest entry: its path read at once (what loading a repository needs), the rest
 * decoded at its first use (what serving the file, or telling it from an older one, needs).
 * After a restart a worker loads each repository at its first request; decoding every pool
 * file's key, digest and type then took about an eighth of a worker's time, for files mostly never asked for.
 */
class ManifestEntry implements IndexFile {
  readonly path: string;
  private decoded?: IndexFile;

  /** the entry is `manifest[start, end)`: no view of it is made until it is decoded; `path` as decodeManifest read it */
  constructor(
    private readonly manifest: Buffer,
    private readonly start: number,
    private readonly end: number,
    path: string | undefined,
  ) {
    this.path = path ?? this.whole.path;
  }

  /** whether `other` is encoded as the very same bytes: then it is the same file, and neither is decoded to tell */
  sameEncodingAs(other: ManifestEntry): boolean {
    return this.end - this.start === other.end - other.start && this.manifest.compare(other.manifest, other.start, other.end, this.start, this.end) === 0;
  }

  private get whole(): IndexFile {
    return (this.decoded ??= IndexFile.decode(this.manifest.subarray(this.start, this.end)));
  }

  get blobKey(): string {
    return this.whole.blobKey;
  }

  get size(): number {
    return this.whole.size;
  }

  get sha256(): string {
    return this.whole.sha256;
  }

  get contentType(): string {
    return this.whole.contentType;
  }

  get package(): boolean {
    return this.whole.package;
  }
}

/**
 * Whether two entries of manifests as read here are encoded alike, compared without decoding
 * them: a part re-written after one more package holds about a thousand entries the last
 * generation listed too, each of which decoding cost a few microseconds at every publication.
 */
export const encodedAlike = (a: IndexFile, b: IndexFile): boolean => a instanceof ManifestEntry && b instanceof ManifestEntry && a.sameEncodingAs(b);

/**
 * The path of the IndexFile `reader` stands at, which ends at `end` (the publisher's encoder
 * writes fields in order, so it comes first); undefined for anything else. Read with
 * Buffer's UTF-8 decoder: the reader's own takes TextDecoder for strings above 32 bytes.
 */
function pathAt(reader: BinaryReader, buffer: Buffer, end: number): string | undefined {
  if (reader.pos >= end || reader.uint32() !== PATH_TAG) return undefined;
  const length = reader.uint32();
  return reader.pos + length <= end ? buffer.toString('utf8', reader.pos, reader.pos + length) : undefined;
}

/**
 * A manifest's files (entries decoded as they are used, see ManifestEntry), its parts named,
 * not read (PublicationManifests reads them). A generation shares its unchanged parts with
 * the one before (read once, kept by digest), so an entry of such a part stays the object
 * the catalogue already serves. (Keeping decoded entries by their encoding, to hand back an
 * earlier object for any entry, cost more than decoding: building the key alone took twice
 * the decode.)
 */
export function decodeManifest(bytes: Uint8Array): PublicationManifest {
  const manifest: PublicationManifest = { files: [], repositoryFiles: [], parts: [] };
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = new BinaryReader(buffer);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag !== FILES_TAG && tag !== REPOSITORY_FILES_TAG && tag !== PARTS_TAG) {
      reader.skip(tag & 7);
      continue;
    }
    const length = reader.uint32();
    const start = reader.pos;
    const end = start + length;
    if (end > reader.len) throw new RangeError('publication manifest: an entry runs past the end');
    if (tag === PARTS_TAG) manifest.parts.push(PublicationManifestRef.decode(buffer.subarray(start, end)));
    else (tag === FILES_TAG ? manifest.files : manifest.repositoryFiles).push(new ManifestEntry(buffer, start, end, pathAt(reader, buffer, end)));
    reader.pos = end;
  }
  return manifest;
}

/**
 * a manifest as the catalogue reads it: its own files, then each part's, in order (a part
 * generations share is the same list, which the catalogue's layers build on), and the
 * repository's files
 */
export interface ReadManifest {
  sources: readonly (readonly IndexFile[])[];
  repositoryFiles: readonly IndexFile[];
}

/**
 * The file lists of published generations (IndexPublished names them by key and digest),
 * read from the blob store with their parts, each checked against its SHA-256 and size
 * before anything of it is served, and kept by digest: a manifest or a part never changes
 * under its key, so a generation reads its manifest and the parts no earlier one had.
 */
export class PublicationManifests {
  private readonly manifests = new RecentlyUsed<string, Promise<ReadManifest>>(CACHED_MANIFESTS);
  private readonly parts = new RecentlyUsed<string, Promise<IndexFile[]>>(CACHED_PARTS);

  constructor(private readonly blobs: BlobReader) {}

  manifest(ref: PublicationManifestRef): Promise<ReadManifest> {
    return readOnce(this.manifests, ref.sha256, async () => {
      const manifest = decodeManifest(await this.verified(ref));
      const parts = await Promise.all(manifest.parts.map((part) => this.part(part)));
      return { sources: [manifest.files, ...parts], repositoryFiles: manifest.repositoryFiles };
    });
  }

  private part(ref: PublicationManifestRef): Promise<IndexFile[]> {
    return readOnce(this.parts, ref.sha256, async () => decodeManifest(await this.verified(ref)).files);
  }

  private async verified(ref: PublicationManifestRef): Promise<Buffer> {
    const bytes = await this.blobs.getBytes(ref.blobKey);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== ref.sha256 || bytes.length !== ref.size) {
      throw new Error(`publication manifest ${ref.blobKey} is not the one published (sha256 ${sha256}, ${bytes.length} bytes; expected ${ref.sha256}, ${ref.size} bytes)`);
    }
    return bytes;
  }
}

/** what `read()` gives for `key`, read once while the cache keeps it; a failed read is not kept */
function readOnce<T>(cache: RecentlyUsed<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
  const kept = cache.get(key);
  if (kept) return kept;
  const value = read();
  cache.set(key, value);
  value.catch(() => cache.get(key) === value && cache.delete(key));
  return value;
}
