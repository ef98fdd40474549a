import { describe, expect, it } from 'vitest';
import type { PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';
import { detailsFromUpload, MAX_LISTED_FILES, rpmDependencyText } from './package-details';

const uploaded = (kind: 'DEB' | 'RPM', entry: unknown) => ({ kind, indexEntryJson: JSON.stringify(entry) }) as PackageUploaded;
const file = { size: 1, md5: 'm', sha1: 's', sha256: 'h', sha512: 'l' };

describe('package details', () => {
  it('DEB: the first Description line is the summary, continuation lines unfolded (Policy 5.6.13); relations split at commas', () => {
    const control = [
      { name: 'Package', value: 'hello' },
      { name: 'Depends', value: 'libc6 (>= 2.34),\n bash | dash' },
      { name: 'Homepage', value: 'https://example.com' },
      { name: 'Description', value: 'greets\n First paragraph\n  indented line\n .\n Second.' },
    ];
    expect(detailsFromUpload(uploaded('DEB', { control, file, contents: { paths: ['/usr/bin/hello'], total: 1 } }))).toEqual({
      kind: 'DEB',
      summary: 'greets',
      description: 'First paragraph\n indented line\n\nSecond.',
      relations: [{ relation: 'Depends', items: ['libc6 (>= 2.34)', 'bash | dash'] }],
      facts: [{ name: 'Homepage', value: 'https://example.com' }],
      files: ['/usr/bin/hello'],
      filesTotal: 1,
      filesNote: '',
      md5: 'm',
      sha1: 's',
      sha512: 'l',
    });
  });

  it('a Debian source package: its build relations and facts, its files (the .dsc first) and the .dsc digests', () => {
    const control = [
      { name: 'Format', value: '3.0 (quilt)' },
      { name: 'Source', value: 'hello' },
      { name: 'Binary', value: 'hello, hello-doc' },
      { name: 'Build-Depends', value: 'debhelper-compat (= 13), libfoo-dev' },
    ];
    const files = [{ ...file, name: 'hello_1.0-1.dsc' }, { ...file, md5: 'o', name: 'hello_1.0.orig.tar.gz' }];
    expect(detailsFromUpload(uploaded('DEB', { source: { control, files } }))).toEqual({
      kind: 'DEB',
      summary: 'source package hello',
      description: '',
      relations: [{ relation: 'Build-Depends', items: ['debhelper-compat (= 13)', 'libfoo-dev'] }],
      facts: [{ name: 'Format', value: '3.0 (quilt)' }, { name: 'Binary', value: 'hello, hello-doc' }],
      files: ['hello_1.0-1.dsc', 'hello_1.0.orig.tar.gz'],
      filesTotal: 2,
      filesNote: '',
      md5: 'm',
      sha1: 's',
      sha512: 'l',
    });
  });

  it('DEB uploaded before file lists were read: says so', () => {
    expect(detailsFromUpload(uploaded('DEB', { control: [], file })).filesNote).toMatch(/not recorded/);
  });

  it('RPM: dependencies as rpm -qR prints them, directories left out of the files, long lists cut with a note', () => {
    expect(rpmDependencyText({ name: 'glibc', flags: 'GE', epoch: '2', version: '2.34', release: '1', pre: false })).toBe('glibc >= 2:2.34-1');
    expect(rpmDependencyText({ name: 'bash', flags: 'EQ', epoch: '0', version: '5.1', pre: false })).toBe('bash = 5.1');
    expect(rpmDependencyText({ name: '/bin/sh', pre: true })).toBe('/bin/sh');
    const none: never[] = [];
    const files = [{ path: '/usr/share/tool', type: 'dir' }, ...Array.from({ length: MAX_LISTED_FILES + 1 }, (_, index) => ({ path: `/usr/share/tool/${index}`, type: 'file' }))];
    const rpm = { summary: 'a tool', description: 'Does things.', license: 'MIT', url: '', vendor: '', group: '', packager: '', installedSize: 10, sourceRpm: 'tool-1-1.src.rpm', requires: [{ name: 'bash', pre: false }], provides: none, conflicts: none, obsoletes: none, recommends: none, suggests: none, supplements: none, enhances: none, files };
    const details = detailsFromUpload(uploaded('RPM', { rpm }));
    expect(details).toMatchObject({ kind: 'RPM', summary: 'a tool', relations: [{ relation: 'Requires', items: ['bash'] }], filesTotal: MAX_LISTED_FILES + 1, filesNote: `the first ${MAX_LISTED_FILES} of ${MAX_LISTED_FILES + 1} files are listed` });
    expect(details.files).toHaveLength(MAX_LISTED_FILES);
    expect(details.files[0]).toBe('/usr/share/tool/0');
    expect(details.facts).toEqual([{ name: 'License', value: 'MIT' }, { name: 'Installed size', value: '10' }, { name: 'Source RPM', value: 'tool-1-1.src.rpm' }]);
  });
});
