import { describe, expect, it } from 'vitest';
import { PackageDeleted, PackageUploaded } from './recorded-distributions';

describe('artifact events recorded before the Distribution message', () => {
  // as the event store holds one: JSON, the distribution a "distro/version" string
  const recordedBefore = { packageId: 'p1', repositoryId: 'r1', kind: 'DEB', distribution: 'debian/bookworm', name: 'hello', version: '1.0-1', architecture: 'amd64' };

  it('read with the Distribution the string named, and without the string', () => {
    const read = PackageUploaded.fromJSON(recordedBefore);
    expect(read.uploadDistribution).toEqual({ distro: 'debian', version: 'bookworm' });
    expect(read).not.toHaveProperty('legacyDistribution');
    expect(read).not.toHaveProperty('distribution');
    expect(PackageDeleted.fromJSON({ packageId: 'p1', distribution: 'any-distro/any-version', reason: 'deleted' }).uploadDistribution).toEqual({ distro: 'any-distro', version: 'any-version' });
  });

  it('leave events that carry the message as they are', () => {
    const { distribution: _, ...recordedNow } = { ...recordedBefore, uploadDistribution: { distro: 'el', version: '9' } };
    expect(PackageUploaded.fromJSON(recordedNow).uploadDistribution).toEqual({ distro: 'el', version: '9' });
  });

  it('read an event that names no distribution with the defaults, as decodeEvent reads any missing field', () => {
    expect(PackageUploaded.fromJSON({ packageId: 'p1' }).uploadDistribution).toEqual({ distro: '', version: '' });
  });
});
