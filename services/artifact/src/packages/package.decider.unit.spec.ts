import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import type { PackageUploaded as PackageUploadedData } from '@packyard/formats/recorded-distributions';
import { packageDecider } from './package.decider';

const hello: PackageUploadedData = {
  packageId: 'p1', repositoryId: 'r1', workspaceId: 'w1', ownerId: 'u1', kind: 'DEB', uploadDistribution: { distro: 'ubuntu', version: 'noble' },
  name: 'hello', version: '1.0-1', architecture: 'amd64', filename: 'hello_1.0-1_amd64.deb', sizeBytes: 1000,
  sha256: 'ab', blobKey: 'packages/r1/sha256/ab/ab/ab', indexEntryJson: '{}', uploadedAt: '2026-01-01T00:00:00.000Z', sourceFiles: [],
};
const uploaded = { type: 'PackageUploaded', data: hello } as const;
const deleted = {
  type: 'PackageDeleted',
  data: { packageId: 'p1', repositoryId: 'r1', workspaceId: 'w1', ownerId: 'u1', uploadDistribution: { distro: 'ubuntu', version: 'noble' }, sizeBytes: 1000, blobKey: hello.blobKey, deletedAt: '2026-01-02T00:00:00.000Z', reason: 'deleted' },
} as const;
const spec = deciderSpec(packageDecider);

describe('package decider', () => {
  it('stores a new package', () => spec.given([]).when({ type: 'UploadPackage', package: hello }).then([uploaded]));

  it('refuses the same name, version, architecture and distribution twice', () =>
    spec.given([uploaded]).when({ type: 'UploadPackage', package: { ...hello, packageId: 'p2' } }).thenThrows(/hello 1.0-1 \(amd64\) already exists in ubuntu\/noble/));

  it('accepts the coordinates again once the package was deleted', () =>
    spec.given([uploaded, deleted]).when({ type: 'UploadPackage', package: { ...hello, packageId: 'p2' } }).then([{ type: 'PackageUploaded', data: { ...hello, packageId: 'p2' } }]));

  it('deletes a stored package and says where its bytes are', () =>
    spec.given([uploaded]).when({ type: 'DeletePackage', packageId: 'p1', reason: 'deleted', now: '2026-01-02T00:00:00.000Z' }).then([deleted]));

  it('reads a package recorded before the Distribution message from its "distro/version" string', () => {
    // as such an event is stored: JSON, the string under "distribution", no uploadDistribution
    const { uploadDistribution: _, ...recordedBefore } = { ...hello, distribution: 'ubuntu/noble' };
    spec.given([{ type: 'PackageUploaded', data: recordedBefore as unknown as PackageUploadedData }])
      .when({ type: 'DeletePackage', packageId: 'p1', reason: 'deleted', now: '2026-01-02T00:00:00.000Z' })
      .then([deleted]);
  });

  it('answers not found for a package deleted already or replaced by a newer upload', () => {
    spec.given([uploaded, deleted]).when({ type: 'DeletePackage', packageId: 'p1', reason: 'deleted', now: 'x' }).thenThrows(/Package not found/);
    spec.given([]).when({ type: 'DeletePackage', packageId: 'p1', reason: 'deleted', now: 'x' }).thenThrows(/Package not found/);
  });

  describe('copies from another repository', () => {
    const copy: PackageUploadedData = { ...hello, packageId: 'p9', repositoryId: 'r2', uploadedAt: '2026-01-03T00:00:00.000Z' };
    const copied = {
      packageId: 'p9', repositoryId: 'r2', workspaceId: 'w1', sourcePackageId: 'p1', sourceRepositoryId: 'r1',
      uploadDistribution: { distro: 'ubuntu', version: 'noble' }, name: 'hello', version: '1.0-1', architecture: 'amd64', copiedAt: '2026-01-03T00:00:00.000Z',
    };

    it('stores the copy like an upload (same blob) and records where it came from', () =>
      spec.given([]).when({ type: 'CopyPackage', package: copy, copied, promotion: false }).then([{ type: 'PackageUploaded', data: copy }, { type: 'PackageCopied', data: copied }]));

    it('records a promotion as such', () =>
      spec.given([]).when({ type: 'CopyPackage', package: copy, copied, promotion: true }).then([{ type: 'PackageUploaded', data: copy }, { type: 'PackagePromoted', data: copied }]));

    it('refuses a copy onto a version the target has already', () =>
      spec.given([{ type: 'PackageUploaded', data: copy }]).when({ type: 'CopyPackage', package: { ...copy, packageId: 'p10' }, copied, promotion: false }).thenThrows(/already exists in ubuntu\/noble/));

    it('a copied package can be deleted like an uploaded one', () =>
      spec
        .given([{ type: 'PackageUploaded', data: copy }, { type: 'PackageCopied', data: copied }])
        .when({ type: 'DeletePackage', packageId: 'p9', reason: 'deleted', now: '2026-01-04T00:00:00.000Z' })
        .then([{ type: 'PackageDeleted', data: { ...deleted.data, packageId: 'p9', repositoryId: 'r2', deletedAt: '2026-01-04T00:00:00.000Z' } }]));

    it('removes a promoted source with the reason "promoted"', () =>
      spec.given([uploaded]).when({ type: 'DeletePackage', packageId: 'p1', reason: 'promoted', now: '2026-01-02T00:00:00.000Z' }).then([{ type: 'PackageDeleted', data: { ...deleted.data, reason: 'promoted' } }]));
  });
});
