import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildRepodata } from './repodata.writer';
import { buildUpdateinfo, type UpdateinfoAdvisory } from './updateinfo.writer';

const advisory: UpdateinfoAdvisory = {
  id: 'PKY-2026-0001',
  type: 'security',
  severity: 'Important',
  title: 'hello: <overflow> & "more"',
  description: 'bell\x07 removed',
  issuedAt: '2026-03-04T05:06:07.000Z',
  updatedAt: '2026-03-05T00:00:00.000Z',
  references: [{ type: 'cve', id: 'CVE-2026-1234', href: 'https://www.cve.org/CVERecord?id=CVE-2026-1234', title: 'CVE-2026-1234' }],
  packages: [{ name: 'hello', epoch: 1, version: '2.0', release: '1.el9', arch: 'x86_64' }],
};
const options = { from: 'Packyard acme/tools', collection: { short: 'el-9', name: 'Packyard acme/tools el 9' } };

describe('buildUpdateinfo', () => {
  it("writes each advisory in createrepo_c's element order, with libsolv's date form", () => {
    expect(buildUpdateinfo([advisory], options)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<updates>\n' +
        '  <update from="Packyard acme/tools" status="final" type="security" version="1">\n' +
        '    <id>PKY-2026-0001</id>\n' +
        '    <title>hello: &lt;overflow&gt; &amp; &quot;more&quot;</title>\n' +
        '    <issued date="2026-03-04 05:06:07"/>\n' +
        '    <updated date="2026-03-05 00:00:00"/>\n' +
        '    <severity>Important</severity>\n' +
        '    <description>bell removed</description>\n' +
        '    <references>\n' +
        '      <reference href="https://www.cve.org/CVERecord?id=CVE-2026-1234" id="CVE-2026-1234" type="cve" title="CVE-2026-1234"/>\n' +
        '    </references>\n' +
        '    <pkglist>\n' +
        '      <collection short="el-9">\n' +
        '        <name>Packyard acme/tools el 9</name>\n' +
        '        <package name="hello" version="2.0" release="1.el9" epoch="1" arch="x86_64">\n' +
        '          <filename>hello-2.0-1.el9.x86_64.rpm</filename>\n' +
        '        </package>\n' +
        '      </collection>\n' +
        '    </pkglist>\n' +
        '  </update>\n' +
        '</updates>\n',
    );
  });

  it('leaves out what is empty, as createrepo_c leaves out what is unset', () => {
    const xml = buildUpdateinfo([{ ...advisory, severity: '', description: '', references: [{ type: 'other', id: '7', href: '', title: '' }] }], options);
    expect(xml).not.toContain('<severity>');
    expect(xml).not.toContain('<description>');
    expect(xml).toContain('<reference id="7" type="other"/>');
  });
});

describe('buildRepodata with updateinfo', () => {
  it('gzips it under its digest and lists it after primary, filelists and other with the open digest and size', async () => {
    const xml = buildUpdateinfo([advisory], options);
    const { repomd, files } = await buildRepodata([], { revision: '1', timestamp: 2, additional: [{ type: 'updateinfo', xml }] });
    const updateinfo = files[3];
    expect(files.map((file) => file.path.replace(/^repodata\/[0-9a-f]{64}-/, ''))).toEqual(['primary.xml.gz', 'filelists.xml.gz', 'other.xml.gz', 'updateinfo.xml.gz']);
    expect(updateinfo.path).toBe(`repodata/${updateinfo.sha256}-updateinfo.xml.gz`);
    expect(gunzipSync(updateinfo.bytes).toString()).toBe(xml);
    expect(repomd.bytes.toString()).toContain(`<data type="updateinfo">\n    <checksum type="sha256">${updateinfo.sha256}</checksum>`);
    expect(repomd.bytes.toString()).toContain(`<open-size>${Buffer.byteLength(xml)}</open-size>`);
  });
});
