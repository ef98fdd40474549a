import { describe, expect, it } from 'vitest';
import type { PackageDocument } from '../projections/packages.projection';
import { retentionPlan } from './retention-plan';

const NOW = new Date('2026-06-30T00:00:00.000Z');
let serial = 0;
const pkg = (version: string, extra: Partial<PackageDocument> = {}): PackageDocument => ({
  id: `p${++serial}`, stream: 's', repositoryId: 'r1', workspaceId: 'w1', ownerId: 'u1', kind: 'DEB', distribution: 'debian/bookworm',
  name: 'hello', version, architecture: 'amd64', filename: `hello_${version}_amd64.deb`, sizeBytes: 1, sha256: 'x', blobKey: 'k',
  publishedAt: '2026-01-01T00:00:00.000Z', downloads: 0, ...extra,
});
const versions = (list: PackageDocument[]) => list.map((p) => p.version).sort();

describe('retentionPlan', () => {
  it('keeps exactly the newest N versions in dpkg order, whatever the upload order', () => {
    const packages = ['1.10', '1.9', '1.0~rc1', '2.0', '1.0'].map((v) => pkg(v));
    expect(versions(retentionPlan(packages, { keepVersions: 2, keepDownloadedDays: 0 }, NOW))).toEqual(['1.0', '1.0~rc1', '1.9']);
  });

  it('counts per name, distribution and architecture', () => {
    const packages = [pkg('1'), pkg('2'), pkg('1', { architecture: 'arm64' }), pkg('1', { distribution: 'ubuntu/noble' }), pkg('1', { name: 'other' })];
    expect(versions(retentionPlan(packages, { keepVersions: 1, keepDownloadedDays: 0 }, NOW))).toEqual(['1']);
  });

  it('orders RPM versions as rpm does', () => {
    const packages = ['1.0-1', '1.0-10', '1.0-2', '1.0~rc1-1'].map((v) => pkg(v, { kind: 'RPM' }));
    expect(versions(retentionPlan(packages, { keepVersions: 1, keepDownloadedDays: 0 }, NOW))).toEqual(['1.0-1', '1.0-2', '1.0~rc1-1']);
  });

  it('spares a version downloaded within the protected days, but not one downloaded before', () => {
    const packages = [pkg('3'), pkg('2', { lastDownloadedAt: '2026-06-25T00:00:00.000Z' }), pkg('1', { lastDownloadedAt: '2026-05-01T00:00:00.000Z' })];
    expect(versions(retentionPlan(packages, { keepVersions: 1, keepDownloadedDays: 7 }, NOW))).toEqual(['1']);
    expect(versions(retentionPlan(packages, { keepVersions: 1, keepDownloadedDays: 0 }, NOW))).toEqual(['1', '2']);
  });

  it('keeps everything without a version limit', () => {
    expect(retentionPlan([pkg('1'), pkg('2')], { keepVersions: 0, keepDownloadedDays: 0 }, NOW)).toEqual([]);
  });
});
