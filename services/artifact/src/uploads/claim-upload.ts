import { randomUUID } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { parseDeb, parseRpm, type RepositoryKind } from '@packyard/formats';
import { handleCommand, type EventSourcing } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import type { Package } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { Repository } from '@packyard/proto/packyard/repository/v1/repository';
import { packageDecider } from '../packages/package.decider';
import { isPackageIntegrationEvent, packageStream } from '../packages/package.events';
import { toPackage, type PackageDocument } from '../projections/packages.projection';
import { releaseBlobIfUnused } from './blob-references';
import { asUploadError, checkDistribution, checkExtension, debIdentity, rpmIdentity, type PackageIdentity } from './upload-rules';

/** content-addressed per repository, so a repository's bytes are freed with it */
export const packageBlobPrefix = (repositoryId: string) => `packages/${repositoryId}`;

export interface ClaimUploadInput {
  repository: Repository;
  stagingKey: string;
  filename: string;
  distribution: string;
  caller: unknown;
}

/**
 * Claims a staged upload: checks extension and distribution, then reads the staged
 * bytes once, feeding the parser and the content-addressed copy at the same time. A
 * package that does not parse leaves nothing behind; the staging object is always removed.
 */
export async function claimUpload(es: EventSourcing, blobs: BlobStore, input: ClaimUploadInput, maxBytes: number): Promise<Package> {
  const { repository } = input;
  const kind = repository.kind as RepositoryKind;
  try {
    checkExtension(kind, input.filename);
    const distribution = checkDistribution(kind, input.distribution);
    const { identity, stored } = await parseAndStore(blobs, kind, await blobs.get(input.stagingKey), packageBlobPrefix(repository.id), maxBytes);
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

async function parseAndStore(blobs: BlobStore, kind: RepositoryKind, source: Readable, prefix: string, maxBytes: number) {
  const toParser = new PassThrough({ highWaterMark: 1024 * 1024 });
  const toStore = new PassThrough({ highWaterMark: 1024 * 1024 });
  source.pipe(toParser);
  source.pipe(toStore);
  const parsing: Promise<PackageIdentity> =
    kind === 'DEB'
      ? parseDeb(toParser, { maxPackageBytes: maxBytes }).then(debIdentity)
      : parseRpm(toParser, { maxPackageBytes: maxBytes }).then(rpmIdentity);
  const storing = blobs.putContentAddressed(prefix, toStore, { maxBytes });
  const [parsed, stored] = await Promise.allSettled([
    parsing.catch((error) => {
      // stop the copy: a package that does not parse is never stored
      source.unpipe(toStore);
      // without an error: the store sees a premature close (and keeps nothing) while it
      // still reads, and nobody has to hear about it once it finished
      toStore.destroy();
      source.destroy();
      throw error;
    }),
    storing,
  ]);
  if (parsed.status === 'rejected') {
    // the copy may have finished before the parser gave up
    if (stored.status === 'fulfilled') await blobs.delete(stored.value.key);
    throw asUploadError(parsed.reason);
  }
  if (stored.status === 'rejected') throw stored.reason;
  return { identity: parsed.value, stored: stored.value };
}
