import { describe, expect, it } from 'vitest';
import type { DebPackage } from '@packyard/formats';
import { checkDistribution, checkExtension, debIdentity, debUploadType } from './upload-rules';

describe('upload rules', () => {
  it('wants the extension of the repository kind, in any case', () => {
    expect(() => checkExtension('DEB', 'hello.rpm')).toThrow('File must be a .deb package');
    expect(() => checkExtension('RPM', 'hello.deb')).toThrow('File must be a .rpm package');
    expect(() => checkExtension('DEB', 'HELLO.DEB')).not.toThrow();
  });

  it('takes debian-installer and debug-symbol packages and source packages into a DEB repository', () => {
    for (const name of ['di_1_amd64.udeb', 'hello-dbgsym_1_amd64.DDEB', 'hello_1.0-1.dsc']) expect(() => checkExtension('DEB', name)).not.toThrow();
    expect(() => checkExtension('RPM', 'hello_1.0-1.dsc')).toThrow('File must be a .rpm package');
    expect(['a.deb', 'a.UDEB', 'a.ddeb', 'a.dsc'].map(debUploadType)).toEqual(['deb', 'udeb', 'ddeb', 'dsc']);
  });

  it('requires a distribution of the kind’s list', () => {
    expect(() => checkDistribution('DEB', '')).toThrow('Distribution is required for upload');
    expect(() => checkDistribution('DEB', 'el/9')).toThrow(/Unknown distribution "el\/9" for a DEB repository/);
    expect(() => checkDistribution('RPM', 'el/9\nFilename: x')).toThrow(/Unknown distribution/);
    expect(checkDistribution('RPM', 'el/9')).toEqual({ distro: 'el', version: '9' });
  });

  it('names the file after the package, not after the upload', () => {
    const deb: DebPackage = {
      name: 'hello', version: '2:1.0-1', architecture: 'amd64', control: [], controlCompression: 'gzip', dataCompression: 'xz',
      file: { size: 1, md5: 'm', sha1: 's', sha256: 'h', sha512: 'l' }, contents: { paths: [], total: 0 },
    };
    const identity = debIdentity(deb);
    expect(identity.filename).toBe('hello_1.0-1_amd64.deb');
    expect(debIdentity({ ...deb, name: 'hello-dbgsym' }, 'ddeb').filename).toBe('hello-dbgsym_1.0-1_amd64.ddeb');
  });
});
