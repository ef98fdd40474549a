import { randomUUID } from 'node:crypto';
import { parseDeb, parseRpm, type RepositoryKind, type StreamDigesterFactory } from '@packyard/formats';
import { handleCommand, type EventSourcing } from '@packyard/platform';
import { contentAddressedKey, type BlobStore } from '@packyard/platform/blobs/index';
import type { Package } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { Repository } from '@packyard/proto/packyard/repository/v1/repository';
import { packageDecider } from '../packages/package.decider';
import { isPackageIntegrationEvent, packageStream } from '../packages/package.events';
import { toPackage, type PackageDocument } from '../projections/packages.projection';
import { releaseBlobIfUnused } from './blob-references';
import { storeSignedRpm, type RpmHeaderSigner } from './signed-rpm';
import { asUploadError, checkDistribution, checkExtension, debIdentity, rpmIdentity, type PackageIdentity } from './upload-rules';

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
  caller: unknown;
}

/**
 * Claims a staged upload: checks extension and distribution, then parses the staged
 * bytes while the very same blob moves to its content-addressed key (its SHA-256 is known
 * from staging): the package is read once and never copied. A package that does not
 * parse leaves nothing behind; the staging object is always removed.
 */
export async function claimUpload(es: EventSourcing, blobs: BlobStore, input: ClaimUploadInput, settings: UploadSettings): Promise<Package> {
  const { repository } = input;
  const kind = repository.kind as RepositoryKind;
  try {
    checkExtension(kind, input.filename);
    const distribution = checkDistribution(kind, input.distribution);
    const prefix = packageBlobPrefix(repository.id);
    const { identity, stored } =
      kind === 'DEB'
        ? await parseAndPromote(blobs, input.stagingKey, prefix, settings)
        : await parseAndSign(blobs, input.stagingKey, prefix, repository.id, settings);
    const packages = es.readModels.collection<PackageDocument>('packages');
    const data = {
      packageId: randomUUID(),
      repositoryId: repository.id,
      workspaceId: repository.workspaceId,
      ownerId: repository.ownerId,
      kind,
      distribution: `${distribution.distro}/${distribution.version}`,
      ...identity,
      sizeBytes: stored.size,
      sha256: stored.sha256,
      blobKey: stored.key,
      uploadedAt: new Date().toISOString(),
    };
    try {
      const result = await handleCommand(es.events, packageStream(data), packageDecider, { type: 'UploadPackage', package: data }, {
        isIntegration: isPackageIntegrationEvent,
        metadata: { caller: input.caller },
      });
      await es.caughtUp(result.lastPosition);
    } catch (error) {
      // a duplicate may share these very bytes with the package it duplicates
      await releaseBlobIfUnused(packages, blobs, stored.key);
      throw error;
    }
    return toPackage((await packages.get(data.packageId))!);
  } finally {
    await blobs.delete(input.stagingKey);
  }
}

/** a .deb is stored as uploaded: its bytes move to their content address while being parsed */
async function parseAndPromote(blobs: BlobStore, stagingKey: string, prefix: string, { maxBytes, digester }: UploadSettings) {
  const staged = await blobs.head(stagingKey);
  if (!staged?.sha256) throw new Error(`staged upload ${stagingKey} is missing or has no SHA-256`);
  const stored = { key: contentAddressedKey(prefix, staged.sha256), size: staged.size, sha256: staged.sha256 };
  // opened before the move, so the parser reads on while the blob changes its name
  const source = await blobs.get(stagingKey);
  // the same bytes, uploaded before (perhaps for another distribution), are stored already
  const storedBefore = (await blobs.head(stored.key)) !== undefined;
  const parsing: Promise<PackageIdentity> = parseDeb(source, { maxPackageBytes: maxBytes }, { digester }).then(debIdentity);
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
