import { formatDistribution } from '@packyard/formats';
import { PackageUploaded } from '@packyard/formats/recorded-distributions';
import { assertNever, conflict, notFound, type Decider } from '@packyard/platform';
import type { PackageCopiedData, PackageEvent } from './package.events';

export type PackageState =
  | { status: 'absent' }
  | { status: 'stored'; package: PackageUploaded };

export type PackageCommand =
  | { type: 'UploadPackage'; package: PackageUploaded }
  /** the package of another repository, stored again here: same blob, this repository's coordinates */
  | { type: 'CopyPackage'; package: PackageUploaded; copied: PackageCopiedData; promotion: boolean }
  | { type: 'DeletePackage'; packageId: string; reason: 'deleted' | 'repository-deleted' | 'promoted' | 'retention'; now: string };

const duplicate = (pkg: PackageUploaded) =>
  conflict('PACKYARD_ARTIFACT_DUPLICATE', `Package ${pkg.name} ${pkg.version} (${pkg.architecture}) already exists in ${formatDistribution(pkg.uploadDistribution)}`);

/**
 * A package at its coordinates: stored once; a second upload of the same name, version,
 * architecture and distribution is a conflict until the first is deleted.
 */
export const packageDecider: Decider<PackageState, PackageCommand, PackageEvent> = {
  initialState: () => ({ status: 'absent' }),
  decide(command, state) {
    switch (command.type) {
      case 'UploadPackage': {
        if (state.status === 'stored') throw duplicate(command.package);
        return [{ type: 'PackageUploaded', data: command.package }];
      }
      case 'CopyPackage': {
        if (state.status === 'stored') throw duplicate(command.package);
        return [
          { type: 'PackageUploaded', data: command.package },
          { type: command.promotion ? 'PackagePromoted' : 'PackageCopied', data: command.copied },
        ];
      }
      case 'DeletePackage': {
        if (state.status !== 'stored' || state.package.packageId !== command.packageId) {
          throw notFound('PACKYARD_ARTIFACT_PACKAGE_NOT_FOUND', 'Package not found');
        }
        const pkg = state.package;
        return [
          {
            type: 'PackageDeleted',
            data: {
              packageId: pkg.packageId,
              repositoryId: pkg.repositoryId,
              workspaceId: pkg.workspaceId,
              ownerId: pkg.ownerId,
              uploadDistribution: pkg.uploadDistribution,
              sizeBytes: pkg.sizeBytes,
              blobKey: pkg.blobKey,
              deletedAt: command.now,
              reason: command.reason,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'PackageUploaded':
        // the stream may hold an event recorded before the Distribution message: read it as one
        return { status: 'stored', package: PackageUploaded.fromJSON(event.data) };
      case 'PackageDeleted':
        return { status: 'absent' };
      case 'PackageCopied':
      case 'PackagePromoted':
        return state;
      default:
        return assertNever(event);
    }
  },
};
