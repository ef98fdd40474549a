import { describe, expect, it } from 'vitest';
import { formatDistribution } from '@packyard/formats';
import { contentTypeOf, debComponents, packagesShownIn, poolPath, publicationTargets, targetsShowing } from './publication-layout';

describe('publication layout', () => {
  it('publishes every listed DEB version and the install tab codenames, plus the repository codename under each distro', () => {
    const keys = publicationTargets({ kind: 'DEB', codename: 'stable' }).map(formatDistribution);
    expect(keys).toEqual(expect.arrayContaining(['ubuntu/noble', 'ubuntu/jammy', 'ubuntu/focal', 'debian/bookworm', 'debian/bullseye', 'kali/kali-rolling', 'ubuntu/stable', 'debian/stable']));
    expect(keys).not.toContain('ubuntu/any-version');
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('publishes every listed RPM version', () => {
    expect(publicationTargets({ kind: 'RPM', codename: '' }).map(formatDistribution)).toEqual(['el/9', 'el/8', 'el/7', 'fedora/39', 'fedora/38', 'fedora/37', 'opensuse/tumbleweed', 'opensuse/leap-15.5']);
  });

  it('shows any-version packages in every version of the distro and any-distro packages everywhere', () => {
    const repo = { kind: 'DEB', codename: 'stable' } as const;
    expect(targetsShowing(repo, { distro: 'ubuntu', version: 'noble' }).map(formatDistribution)).toEqual(['ubuntu/noble']);
    expect(targetsShowing(repo, { distro: 'debian', version: 'any-version' }).map(formatDistribution)).toEqual(['debian/bookworm', 'debian/bullseye', 'debian/buster', 'debian/stretch', 'debian/stable']);
    expect(targetsShowing(repo, { distro: 'any-distro', version: 'any-version' })).toHaveLength(publicationTargets(repo).length);
  });

  it('lists in a target the packages uploaded for it, its distro’s any-version and any-distro, and no other', () => {
    const packages = ['ubuntu/noble', 'ubuntu/jammy', 'ubuntu/any-version', 'any-distro/any-version', 'debian/bookworm', 'ubuntu/noble'].map((distribution, index) => ({ id: index, distribution }));
    const shownIn = packagesShownIn(packages);
    expect(shownIn({ distro: 'ubuntu', version: 'noble' }).map((pkg) => pkg.id)).toEqual([0, 2, 3, 5]);
    expect(shownIn({ distro: 'debian', version: 'bookworm' }).map((pkg) => pkg.id)).toEqual([3, 4]);
    expect(shownIn({ distro: 'fedora', version: '40' }).map((pkg) => pkg.id)).toEqual([3]);
    const noble = packages.filter((pkg) => pkg.distribution === 'ubuntu/noble');
    // every package shown: the same list, not a copy of it
    expect(packagesShownIn(noble)({ distro: 'ubuntu', version: 'noble' })).toBe(noble);
    expect(packagesShownIn(noble)({ distro: 'ubuntu', version: 'jammy' })).toEqual([]);
  });

  it('keeps same-named files of different upload distributions apart in the pool', () => {
    const pkg = { name: 'libfoo', filename: 'libfoo_1.0_amd64.deb' };
    expect(poolPath('DEB', 'main', { ...pkg, distribution: 'ubuntu/noble' })).toBe('pool/main/libf/libfoo/ubuntu/noble/libfoo_1.0_amd64.deb');
    expect(poolPath('DEB', 'main', { ...pkg, distribution: 'ubuntu/any-version' })).toBe('pool/main/libf/libfoo/ubuntu/any-version/libfoo_1.0_amd64.deb');
    expect(poolPath('RPM', '', { name: 'Hello', filename: 'Hello-1-1.x86_64.rpm', distribution: 'el/9' })).toBe('Packages/el/9/h/Hello-1-1.x86_64.rpm');
  });

  it('offers every install-tab component, the repository’s first', () => {
    expect(debComponents('contrib')).toEqual(['contrib', 'main', 'non-free']);
    expect(contentTypeOf('dists/noble/Release.gpg')).toBe('application/pgp-signature');
  });
});
