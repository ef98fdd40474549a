import { randomUUID } from 'node:crypto';
import type { RepositoryKind } from '@packyard/formats';
import { handleCommand, invalid, loadAggregate, type EventSourcing } from '@packyard/platform';
import type { Package } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { Repository } from '@packyard/proto/packyard/repository/v1/repository';
import { packageDecider } from '../packages/package.decider';
import { isPackageIntegrationEvent, packageStream } from '../packages/package.events';
import { PACKAGES, toPackage, type PackageDocument } from '../projections/packages.projection';
import { checkDistribution } from '../uploads/upload-rules';

export interface CopyPackageInput {
  source: PackageDocument;
  target: Repository;
  /** empty: the package's own distribution */
  distribution: string;
  promote: boolean;
  caller: unknown;
  now: string;
}

/**
 * Stores a package of one repository in another of the same workspace without its bytes
 * moving: the copy names the very same blob (blobs are shared by reference and freed when no
 * package names them) and the repository module indexes it from its PackageUploaded like any
 * upload. A promotion then deletes the source (PackageDeleted, reason "promoted"), so a
 * failure between the two leaves the package in both repositories, never in neither.
 */
export async function copyPackage(es: EventSourcing, input: CopyPackageInput): Promise<Package> {
  const { source, target } = input;
  if (source.kind !== target.kind) {
    throw invalid('PACKYARD_ARTIFACT_COPY_KIND', `A ${source.kind} package cannot go to the ${target.kind} repository ${target.name}`);
  }
  if (target.workspaceId !== source.workspaceId) throw invalid('PACKYARD_ARTIFACT_COPY_WORKSPACE', 'Packages can only be copied within their workspace');
  const distribution = checkDistribution(target.kind as RepositoryKind, input.distribution || source.distribution);
  const { state } = await loadAggregate(es.events, source.stream, packageDecider);
  if (state.status !== 'stored') throw new Error(`package ${source.id} is listed but its stream ${source.stream} holds none`);

  const data = {
    ...state.package,
    packageId: randomUUID(),
    repositoryId: target.id,
    workspaceId: target.workspaceId,
    ownerId: target.ownerId,
    uploadDistribution: distribution,
    uploadedAt: input.now,
  };
  const copied = {
    packageId: data.packageId,
    repositoryId: target.id,
    workspaceId: target.workspaceId,
    sourcePackageId: source.id,
    sourceRepositoryId: source.repositoryId,
    uploadDistribution: distribution,
    name: data.name,
    version: data.version,
    architecture: data.architecture,
    copiedAt: input.now,
  };
  const options = { isIntegration: isPackageIntegrationEvent, metadata: { caller: input.caller } };
  let result = await handleCommand(es.events, packageStream(data), packageDecider, { type: 'CopyPackage', package: data, copied, promotion: input.promote }, options);
  if (input.promote) {
    result = await handleCommand(es.events, source.stream, packageDecider, { type: 'DeletePackage', packageId: source.id, reason: 'promoted', now: input.now }, options);
  }
  await es.caughtUp(result.lastPosition);
  return toPackage((await es.readModels.collection<PackageDocument>(PACKAGES).get(data.packageId))!);
}
