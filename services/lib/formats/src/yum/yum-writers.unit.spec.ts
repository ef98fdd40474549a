import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RpmPackage } from '../rpm/rpm.parser';
import { buildRepodata } from './repodata.writer';
import { isPrimaryFile, yumPackageFragments } from './yum-package.fragments';

const rpm: RpmPackage = {
  name: 'hello', epoch: 0, version: '1.0', release: '1', arch: 'x86_64', summary: 'says <hi> & "bye"',
  description: 'bell\x07 removed', url: '', license: 'MIT', vendor: '', group: 'Unspecified', packager: '', buildHost: 'b',
  sourceRpm: 'hello-1.0-1.src.rpm', buildTime: 1700000000, installedSize: 10, archiveSize: 20, headerRange: { start: 4504, end: 6000 },
  provides: [{ name: 'hello', flags: 'EQ', epoch: '0', version: '1.0', release: '1', pre: false }],
  requires: [{ name: '/bin/sh', pre: true }], conflicts: [], obsoletes: [], recommends: [], suggests: [], supplements: [], enhances: [],
  files: [{ path: '/usr/bin/hello', type: 'file' }, { path: '/usr/share/hello', type: 'dir' }, { path: '/etc/hello', type: 'ghost' }],
  changelog: [{ author: 'new <n@x>', date: 2, text: 'two' }, { author: 'old', date: 1, text: 'one' }],
  fileDigestAlgorithm: 'sha256', file: { size: 6713, sha256: 'f'.repeat(64) },
};

describe('yumPackageFragments', () => {
  const fragments = yumPackageFragments({ rpm, location: 'Packages/h/hello-1.0-1.x86_64.rpm', fileTime: 1700000100 });

  it('escapes text and attributes and drops characters XML cannot carry', () => {
    expect(fragments.primary).toContain('<summary>says &lt;hi&gt; &amp; &quot;bye&quot;</summary>');
    expect(fragments.primary).toContain('<description>bell removed</description>');
    expect(fragments.other).toContain('author="new &lt;n@x&gt;"');
  });

  it('lists only primary files in primary and every file in filelists', () => {
    expect(fragments.primary).toContain('<file>/usr/bin/hello</file>');
    expect(fragments.primary).toContain('<file type="ghost">/etc/hello</file>');
    expect(fragments.primary).not.toContain('/usr/share/hello');
    expect(fragments.filelists).toContain('<file type="dir">/usr/share/hello</file>');
  });

  it('writes dependency entries with pre and the changelog oldest first', () => {
    expect(fragments.primary).toContain('<rpm:entry name="/bin/sh" pre="1"/>');
    expect(fragments.primary).not.toContain('<rpm:conflicts>');
    expect(fragments.other.indexOf('one')).toBeLessThan(fragments.other.indexOf('two'));
  });

  it('applies createrepo_c primary-file rule', () => {
    expect(['/etc/x', '/usr/sbin/x', '/opt/bin/x', '/usr/lib/sendmail'].every(isPrimaryFile)).toBe(true);
    expect(['/usr/share/x', '/etcetera/x', '/usr/lib/sendmail2'].some(isPrimaryFile)).toBe(false);
  });
});

describe('buildRepodata', () => {
  it('writes content-addressed gzipped documents with namespaces and a repomd listing their digests', async () => {
    const fragments = yumPackageFragments({ rpm, location: 'hello.rpm', fileTime: 1 });
    const { repomd, files } = await buildRepodata([{ key: 'a', fragments }, { key: 'b', fragments }], { revision: '42', timestamp: 1700000000 });
    const text = repomd.bytes.toString();
    expect(text).toContain('<repomd xmlns="http://linux.duke.edu/metadata/repo" xmlns:rpm="http://linux.duke.edu/metadata/rpm">');
    expect(text).toContain('<revision>42</revision>');
    for (const [file, type, namespace] of [
      [files[0], 'primary', 'http://linux.duke.edu/metadata/common'],
      [files[1], 'filelists', 'http://linux.duke.edu/metadata/filelists'],
      [files[2], 'other', 'http://linux.duke.edu/metadata/other'],
    ] as const) {
      const sha = createHash('sha256').update(file.bytes).digest('hex');
      expect(file.path).toBe(`repodata/${sha}-${type}.xml.gz`);
      const open = gunzipSync(file.bytes);
      expect(open.toString()).toContain(`xmlns="${namespace}"`);
      expect(open.toString()).toContain('packages="2"');
      expect(text).toContain(
        `<data type="${type}">\n    <checksum type="sha256">${sha}</checksum>\n` +
          `    <open-checksum type="sha256">${createHash('sha256').update(open).digest('hex')}</open-checksum>\n` +
          `    <location href="${file.path}"/>\n    <timestamp>1700000000</timestamp>\n` +
          `    <size>${file.bytes.length}</size>\n    <open-size>${open.length}</open-size>\n  </data>`,
      );
    }
  });
});
