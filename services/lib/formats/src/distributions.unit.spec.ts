import { describe, expect, it } from 'vitest';
import { ArtifactFormatErrorCode } from './common/artifact-format.error';
import {
  DEB_UPLOAD_DISTRIBUTIONS, RPM_UPLOAD_DISTRIBUTIONS, concreteDistributions, distroForCodename, formatDistribution,
  indexTargets, isVisibleIn, parseDistribution, uploadsVisibleIn,
} from './distributions';

describe('distributions', () => {
  it('lists the spec §9 upload choices', () => {
    expect(DEB_UPLOAD_DISTRIBUTIONS).toHaveLength(19);
    expect(RPM_UPLOAD_DISTRIBUTIONS).toEqual(['el/9', 'el/8', 'el/7', 'fedora/39', 'fedora/38', 'fedora/37', 'opensuse/tumbleweed', 'opensuse/leap-15.5', 'any-distro/any-version']);
  });

  it('parses distro/version and checks it against the kind', () => {
    expect(parseDistribution('ubuntu/noble', 'DEB')).toEqual({ distro: 'ubuntu', version: 'noble' });
    expect(() => parseDistribution('ubuntu/noble', 'RPM')).toThrow('not a RPM upload distribution');
    expect(() => parseDistribution('ubuntu/noble\nX: y')).toThrow(expect.objectContaining({ code: ArtifactFormatErrorCode.invalidDistribution }));
    expect(() => parseDistribution('../etc/x')).toThrow('distro/version');
    expect(() => parseDistribution('ubuntu')).toThrow('distro/version');
  });

  it('publishes distro/any-version into every version of that distro only', () => {
    expect(indexTargets('DEB', parseDistribution('debian/any-version')).map(formatDistribution)).toEqual([
      'debian/bookworm', 'debian/bullseye', 'debian/buster', 'debian/stretch',
    ]);
    expect(isVisibleIn(parseDistribution('ubuntu/any-version'), parseDistribution('ubuntu/stable'))).toBe(true);
    expect(isVisibleIn(parseDistribution('ubuntu/any-version'), parseDistribution('debian/bookworm'))).toBe(false);
  });

  it('publishes any-distro/any-version everywhere and a concrete upload only in its own index', () => {
    expect(indexTargets('RPM', parseDistribution('any-distro/any-version'))).toEqual(concreteDistributions('RPM'));
    expect(indexTargets('RPM', parseDistribution('el/9'))).toEqual([{ distro: 'el', version: '9' }]);
  });

  it('tells which uploads an index contains', () => {
    expect(uploadsVisibleIn('RPM', parseDistribution('el/8')).map(formatDistribution)).toEqual(['el/8', 'any-distro/any-version']);
    expect(uploadsVisibleIn('DEB', parseDistribution('kali/kali-rolling')).map(formatDistribution)).toEqual(['kali/kali-rolling', 'kali/any-version', 'any-distro/any-version']);
  });

  it('maps install codenames to the distro path that serves them', () => {
    expect(distroForCodename('bookworm')).toBe('debian');
    expect(distroForCodename('noble')).toBe('ubuntu');
    expect(distroForCodename('juno')).toBe('elementaryos');
    expect(distroForCodename('stable')).toBeUndefined();
  });
});
