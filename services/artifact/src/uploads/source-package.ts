import { createHash } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { MAX_DSC_BYTES, parseDsc, type DscListedFile, type SourceIndexFile, type StreamDigesterFactory } from '@packyard/formats';
import { conflict, invalid, type ReadModelStore } from '@packyard/platform';
import { contentAddressedKey, type BlobStore } from '@packyard/platform/blobs/index';
import type { StoredFile } from '@packyard/proto/packyard/artifact/v1/events';
import { SOURCE_FILES, type SourceFileDocument } from '../projections/packages.projection';
import { asUploadError, type PackageIdentity } from './upload-rules';

/** a staged upload part: the key the gateway staged it under and the client's file name */
export interface StagedPart {
  stagingKey: string;
  filename: string;
}

export interface StoredSourcePackage {
  identity: PackageIdentity;
  /** the .dsc */
  stored: { key: string; size: number; sha256: string };
  /** the files the .dsc lists, as stored */
  sourceFiles: StoredFile[];
}

const refuse = (message: string) => invalid('PACKYARD_ARTIFACT_SOURCE_FILES', `Invalid source package: ${message}`);

/** the last path segment: browsers and curl send a bare name, other clients may send a path */
const baseName = (filename: string) => filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);

const withoutEpoch = (version: string) => version.replace(/^\d+:/, '');

/**
 * Checks a Debian source package upload: the staged .dsc parses, the other parts are
 * exactly the files it lists (by name), and each has the size and the MD5, SHA-1 and
 * SHA-256 the .dsc states. Only then is anything stored: every file moves to its content
 * address (one the repository holds already, say an orig tarball shared by two
 * revisions, stays as it is). The .dsc is kept byte for byte, a clearsignature included.
 */
export async function storeSourcePackage(
  blobs: BlobStore,
  readModels: ReadModelStore,
  where: { repositoryId: string; distribution: string },
  dsc: StagedPart,
  parts: readonly StagedPart[],
  prefix: string,
  { maxBytes, digester }: { maxBytes: number; digester: StreamDigesterFactory },
): Promise<StoredSourcePackage> {
  const staged = await blobs.head(dsc.stagingKey);
  if (!staged?.sha256) throw new Error(`staged upload ${dsc.stagingKey} is missing or has no SHA-256`);
  if (staged.size > MAX_DSC_BYTES) throw refuse(`the .dsc is larger than ${MAX_DSC_BYTES} bytes`);
  const dscBytes = await buffer(await blobs.get(dsc.stagingKey));
  let control;
  try {
    control = parseDsc(dscBytes);
  } catch (error) {
    throw asUploadError(error);
  }

  const byName = new Map<string, StagedPart>();
  for (const part of parts) {
    const name = baseName(part.filename);
    if (byName.has(name)) throw refuse(`${name} is uploaded twice`);
    byName.set(name, part);
  }
  const listed = new Set(control.files.map((file) => file.name));
  const unlisted = [...byName.keys()].filter((name) => !listed.has(name));
  if (unlisted.length) throw refuse(`${unlisted.join(', ')} ${unlisted.length === 1 ? 'is' : 'are'} not listed in the .dsc`);
  const missing = control.files.filter((file) => !byName.has(file.name)).map((file) => file.name);
  if (missing.length) throw refuse(`the .dsc lists ${missing.join(', ')}, which the upload does not include (send every file it lists as a "file" part)`);

  const verified: (SourceIndexFile & { stagingKey: string })[] = [];
  for (const file of control.files) verified.push(await verifiedFile(blobs, byName.get(file.name)!.stagingKey, file, maxBytes, digester));

  await checkPoolNames(readModels, where, verified);

  const dscFile = digestsOf(`${control.name}_${withoutEpoch(control.version)}.dsc`, dscBytes);
  const dscStored = { key: contentAddressedKey(prefix, staged.sha256), size: staged.size, sha256: staged.sha256 };
  const moves = [{ from: dsc.stagingKey, to: dscStored.key }, ...verified.map((file) => ({ from: file.stagingKey, to: contentAddressedKey(prefix, file.sha256) }))];
  for (const { from, to } of moves) if ((await blobs.head(to)) === undefined) await blobs.move(from, to);
  return {
    identity: {
      name: control.name,
      version: control.version,
      architecture: 'source',
      filename: dscFile.name,
      indexEntryJson: JSON.stringify({ source: { control: control.control, files: [dscFile, ...verified.map(({ stagingKey: _key, ...file }) => file)] } }),
    },
    stored: dscStored,
    sourceFiles: verified.map((file) => ({ filename: file.name, sizeBytes: file.size, sha256: file.sha256, blobKey: contentAddressedKey(prefix, file.sha256) })),
  };
}

/**
 * A source package's files share one pool directory per upload distribution with the other
 * versions of the package, so a file name there means one content (dak refuses the same):
 * an orig tarball two revisions share must be the same bytes.
 */
async function checkPoolNames(readModels: ReadModelStore, where: { repositoryId: string; distribution: string }, files: readonly { name: string; sha256: string }[]) {
  const sourceFiles = readModels.collection<SourceFileDocument>(SOURCE_FILES);
  for (const file of files) {
    const other = (await sourceFiles.find({ ...where, filename: file.name })).find((stored) => stored.sha256 !== file.sha256);
    if (other) {
      throw conflict('PACKYARD_ARTIFACT_SOURCE_FILE_CONFLICT', `${file.name} is already in ${where.distribution} with other contents; a source package must bring the same bytes under that name`);
    }
  }
}

/** a listed file's staged bytes against the .dsc's size and digests; its SHA-512 besides (the Sources index lists it) */
async function verifiedFile(blobs: BlobStore, stagingKey: string, file: DscListedFile, maxBytes: number, digester: StreamDigesterFactory) {
  const staged = await blobs.head(stagingKey);
  if (!staged?.sha256) throw new Error(`staged upload ${stagingKey} is missing or has no SHA-256`);
  if (staged.size > maxBytes) throw refuse(`${file.name} is larger than ${maxBytes} bytes`);
  if (staged.size !== file.size) throw refuse(`${file.name} has ${staged.size} bytes, the .dsc says ${file.size}`);
  if (staged.sha256 !== file.sha256) throw refuse(`the SHA-256 of ${file.name} is not the one the .dsc states`);
  const digest = digester(['md5', 'sha1', 'sha512']);
  try {
    for await (const chunk of await blobs.get(stagingKey)) await digest.update(chunk as Buffer);
  } catch (error) {
    digest.abandon();
    throw error;
  }
  const { md5, sha1, sha512 } = await digest.digest();
  if (md5 !== file.md5) throw refuse(`the MD5 of ${file.name} is not the one the .dsc states`);
  if (file.sha1 !== undefined && sha1 !== file.sha1) throw refuse(`the SHA-1 of ${file.name} is not the one the .dsc states`);
  return { name: file.name, size: staged.size, md5: md5!, sha1: sha1!, sha256: file.sha256, sha512: sha512!, stagingKey };
}

const digestsOf = (name: string, bytes: Buffer): SourceIndexFile => {
  const hex = (algorithm: string) => createHash(algorithm).update(bytes).digest('hex');
  return { name, size: bytes.length, md5: hex('md5'), sha1: hex('sha1'), sha256: hex('sha256'), sha512: hex('sha512') };
};
