import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { signRpmHeaders, type RpmPackage } from '@packyard/formats';
import type { BlobInfo, BlobStore } from '@packyard/platform/blobs/index';

/** signs an rpm main header with the repository's key (the signing module's SignRpmHeader) */
export type RpmHeaderSigner = (repositoryId: string, header: Buffer) => Promise<Uint8Array>;

/**
 * Stores the repository-signed copy of a staged .rpm content-addressed: the lead and a new
 * signature header carrying the repository's RPMSIGTAG_RSA, then the staged main header and
 * payload streamed on unchanged. Returns the stored blob and the package as it now is
 * (header offsets, size and SHA-256 of the signed file, which is what gets indexed).
 */
export async function storeSignedRpm(
  blobs: BlobStore,
  stagingKey: string,
  prefix: string,
  repositoryId: string,
  rpm: RpmPackage,
  sign: RpmHeaderSigner,
): Promise<{ stored: BlobInfo; rpm: RpmPackage }> {
  const { headerRange } = rpm;
  const headers = await signRpmHeaders(await buffer(await blobs.get(stagingKey, { start: 0, end: headerRange.end - 1 })), headerRange, (header) => sign(repositoryId, header));
  const rest = await blobs.get(stagingKey, { start: headerRange.start, end: rpm.file.size - 1 });
  const stored = await blobs.putContentAddressed(prefix, Readable.from(concatenated(headers, rest)));
  const shift = headers.length - headerRange.start;
  return {
    stored,
    rpm: { ...rpm, headerRange: { start: headerRange.start + shift, end: headerRange.end + shift }, file: { size: stored.size, sha256: stored.sha256 } },
  };
}

async function* concatenated(head: Buffer, rest: Readable): AsyncGenerator<Buffer> {
  yield head;
  yield* rest;
}

