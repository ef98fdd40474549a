import { randomUUID } from 'node:crypto';
import { formatDistribution, parseDeb, parseRpm, type RepositoryKind, type StreamDigesterFactory } from '@packyard/formats';
import { handleCommand, invalid, type EventSourcing } from '@packyard/platform';
import { contentAddressedKey, type BlobStore } from '@packyard/platform/blobs/index';
import type { Package } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { StoredFile } from '@packyard/proto/packyard/artifact/v1/events';
import type { Repository } from '@packyard/proto/packyard/repository/v1/repository';
import { packageDecider } from '../packages/package.decider';
import { isPackageIntegrationEvent, packageStream } from '../packages/package.events';
import { PACKAGES, toPackage, type PackageDocument } from '../projections/packages.projection';
import { releaseBlobsIfUnused } from './blob-references';
import { storeSignedRpm, type RpmHeaderSigner } from './signed-rpm';
import { storeSourcePackage, type StagedPart } from './source-package';
import { asUploadError, checkDistribution, checkExtension, debIdentity, debUploadType, rpmIdentity, type PackageIdentity } from './upload-rules';

/** content-addressed per repository, so a repository's bytes are freed with it */
export const packageBlobPrefix = (repositoryId: string) => `packages/${repositoryId}`;

/** how uploads are checked: the size limit, where their digests are computed, who signs .rpm headers */
export interface UploadSettings {
  readonly maxBytes: number;
  readonly digester: StreamDigesterFactory;
  readonly signRpmHeader: RpmHeaderSigner;
}

export interface ClaimUploadInput {
  repository: Repository;
  stagingKey: string;
  filename: string;
  distribution: string;
  /** a Debian source package's other files (the .dsc is `stagingKey`) */
  sourceFiles?: StagedPart[];
  caller: unknown;
}

/**
 * Claims a staged upload: checks extension and distribution, then parses the staged
 * bytes while the very same blob moves to its content-addressed key (its SHA-256 is known
 * from staging): the package is read once and never copied. A package that does not
 * parse leaves nothing behind; the staging objects are always removed. A Debian source
 * package is a .dsc and the staged files it lists (source-package.ts).
 */
export async function claimUpload(es: EventSourcing, blobs: BlobStore, input: ClaimUploadInput, settings: UploadSettings): Promise<Package> {
  const { repository } = input;
  const kind = repository.kind as RepositoryKind;
  const sourceParts = input.sourceFiles ?? [];
  try {
    checkExtension(kind, input.filename);
    const type = kind === 'DEB' ? debUploadType(input.filename) : undefined;
    if (sourceParts.length && type !== 'dsc') throw invalid('PACKYARD_ARTIFACT_TWO_FILES', 'Only a Debian source package (.dsc) comes with more files');
    const distribution = checkDistribution(kind, input.distribution);
    const prefix = packageBlobPrefix(repository.id);
    const { identity, stored, sourceFiles = [] }: { identity: PackageIdentity; stored: { key: string; size: number; sha256: string }; sourceFiles?: StoredFile[] } =
      type === 'dsc'
        ? await storeSourcePackage(
            blobs,
            es.readModels,
            { repositoryId: repository.id, distribution: formatDistribution(distribution) },
            { stagingKey: input.stagingKey, filename: input.filename },
            sourceParts,
            prefix,
            settings,
          )
        : type
          ? await parseAndPromote(blobs, input.stagingKey, prefix, type, settings)
          : await parseAndSign(blobs, input.stagingKey, prefix, repository.id, settings);
    const data = {
      packageId: randomUUID(),
      repositoryId: repository.id,
      workspaceId: repository.workspaceId,
      ownerId: repository.ownerId,
      kind,
      uploadDistribution: distribution,
      ...identity,
      sizeBytes: stored.size,
      sha256: stored.sha256,
      blobKey: stored.key,
      uploadedAt: new Date().toISOString(),
      sourceFiles,
    };
    try {
      const result = await handleCommand(es.events, packageStream(data), packageDecider, { type: 'UploadPackage', package: data }, {
        isIntegration: isPackageIntegrationEvent,
        metadata: { caller: input.caller },
      });
      await es.caughtUp(result.lastPosition);
    } catch (error) {
      // a duplicate may share these very bytes with the package it duplicates
      await releaseBlobsIfUnused(es.readModels, blobs, [stored.key, ...sourceFiles.map((file) => file.blobKey)]);
      throw error;
    }
    return toPackage((await es.readModels.collection<PackageDocument>(PACKAGES).get(data.packageId))!);
  } finally {
    await Promise.all([input.stagingKey, ...sourceParts.map((part) => part.stagingKey)].map((key) => blobs.delete(key)));
  }
}

/** a .deb (.udeb, .ddeb) is stored as uploaded: its bytes move to their content address while being parsed */
async function parseAndPromote(blobs: BlobStore, stagingKey: string, prefix: string, type: 'deb' | 'udeb' | 'ddeb', { maxBytes, digester }: UploadSettings) {
  const staged = await blobs.head(stagingKey);
  if (!staged?.sha256) throw new Error(`staged upload ${stagingKey} is missing or has no SHA-256`);
  const stored = { key: contentAddressedKey(prefix, staged.sha256), size: staged.size, sha256: staged.sha256 };
  // opened before the move, so the parser reads on while the blob changes its name
  const source = await blobs.get(stagingKey);
  // the same bytes, uploaded before (perhaps for another distribution), are stored already
  const storedBefore = (await blobs.head(stored.key)) !== undefined;
  const parsing: Promise<PackageIdentity> = parseDeb(source, { maxPackageBytes: maxBytes }, { digester }).then((deb) => debIdentity(deb, type));
  const [parsed, moved] = await Promise.allSettled([parsing, storedBefore ? Promise.resolve() : blobs.move(stagingKey, stored.key)]);
  if (parsed.status === 'rejected') {
    // a package that does not parse is never stored
    if (!storedBefore && moved.status === 'fulfilled') await blobs.delete(stored.key);
    throw asUploadError(parsed.reason);
  }
  if (moved.status === 'rejected') throw moved.reason;
  return { identity: parsed.value, stored };
}

/**
 * An .rpm is stored as the repository signed it (gpgcheck=1 on the clients): parsed from
 * staging, then its signed copy written to the content address of the signed bytes.
 */
async function parseAndSign(blobs: BlobStore, stagingKey: string, prefix: string, repositoryId: string, { maxBytes, digester, signRpmHeader }: UploadSettings) {
  let rpm;
  try {
    rpm = await parseRpm(await blobs.get(stagingKey), { maxPackageBytes: maxBytes }, { digester });
  } catch (error) {
    throw asUploadError(error);
  }
  const signed = await storeSignedRpm(blobs, stagingKey, prefix, repositoryId, rpm, signRpmHeader);
  return { identity: rpmIdentity(signed.rpm), stored: { key: signed.stored.key, size: signed.stored.size, sha256: signed.stored.sha256 } };
}
