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

/** PublicationManifest's fields, as tags (field number << 3 | length-delimited) */
const FILES_TAG = (1 << 3) | 2;
const REPOSITORY_FILES_TAG = (2 << 3) | 2;

/**
 * A manifest's files, where an entry encoded as one an earlier manifest had is that
 * manifest's object: one more package in 100,000 decodes one entry, and every unchanged
 * file stays the object the catalogue already located and served (see servedFiles).
 */
export function decodeManifest(bytes: Uint8Array, known: Map<string, IndexFile>): PublicationManifest {
  const manifest: PublicationManifest = { files: [], repositoryFiles: [] };
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = new BinaryReader(buffer);
  while (reader.pos < reader.len) {
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
    // the encoding itself is the key: read in place, no view of it made for an entry already known
    const key = buffer.toString('latin1', start, end);
    let file = known.get(key);
    if (!file) {
      file = IndexFile.decode(buffer.subarray(start, end));
      if (known.size >= KNOWN_ENTRIES) known.clear();
      known.set(key, file);
    }
    (tag === FILES_TAG ? manifest.files : manifest.repositoryFiles).push(file);
  }
  return manifest;
}

/**
 * The file lists of published generations (IndexPublished names them by key and digest),
 * read from the blob store, checked against their SHA-256 and size before anything of
 * them is served, and kept by digest: a manifest never changes under its key.
 */
export class PublicationManifests {
  private readonly cache = new Map<string, Promise<PublicationManifest>>();
  /** encoded entry → its file, across manifests (see decodeManifest) */
  private readonly known = new Map<string, IndexFile>();

  constructor(private readonly blobs: BlobReader) {}

  manifest(ref: PublicationManifestRef): Promise<PublicationManifest> {
    const cached = this.cache.get(ref.sha256);
    if (cached) {
      // most recently used last: the first entry is the one to drop
      this.cache.delete(ref.sha256);
      this.cache.set(ref.sha256, cached);
      return cached;
    }
    const read = this.read(ref);
    read.catch(() => this.cache.delete(ref.sha256));
    this.cache.set(ref.sha256, read);
    if (this.cache.size > CACHED_MANIFESTS) this.cache.delete(this.cache.keys().next().value!);
    return read;
  }

  private async read(ref: PublicationManifestRef): Promise<PublicationManifest> {
    const bytes = await readAll(await this.blobs.get(ref.blobKey));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== ref.sha256 || bytes.length !== ref.size) {
      throw new Error(`publication manifest ${ref.blobKey} is not the one published (sha256 ${sha256}, ${bytes.length} bytes; expected ${ref.sha256}, ${ref.size} bytes)`);
    }
    return decodeManifest(bytes, this.known);
  }
}
