import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { craftRpm, maliciousRpms, minimalRpmTags } from '@packyard/testing/packages/rpm-crafting';
import { ArtifactFormatErrorCode } from '../common/artifact-format.error';
import { parseRpm, splitEvr } from './rpm.parser';

const streamOf = (bytes: Buffer, chunkSize = 13) =>
  Readable.from((function* () {
    for (let at = 0; at < bytes.length; at += chunkSize) yield bytes.subarray(at, at + chunkSize);
  })());

describe('parseRpm', () => {
  it('reads identity, dependencies, files and changelog from the headers', async () => {
    const rpm = craftRpm({
      tags: [
        ...minimalRpmTags('hello'),
        { tag: 1003, type: 'int32', value: [2] },
        { tag: 1049, type: 'stringArray', value: ['rpmlib(PayloadIsXz)', '/bin/sh', 'bash', 'bash', 'hello', '/usr/bin/hello'] },
        { tag: 1048, type: 'int32', value: [16777226, 512, 12, 12, 8, 0] },
        { tag: 1050, type: 'stringArray', value: ['5.2-1', '', '4.0', '4.0', '1.0-1', ''] },
        { tag: 1047, type: 'stringArray', value: ['hello'] },
        { tag: 1112, type: 'int32', value: [8] },
        { tag: 1113, type: 'stringArray', value: ['1.0-1'] },
        { tag: 1118, type: 'stringArray', value: ['/usr/bin/', '/usr/share/', '/var/log/'] },
        { tag: 1117, type: 'stringArray', value: ['hello', 'hello', 'hello.log'] },
        { tag: 1116, type: 'int32', value: [0, 1, 2] },
        { tag: 1030, type: 'int16', value: [0o100755, 0o040755, 0o100644] },
        { tag: 1037, type: 'int32', value: [0, 0, 64] },
        { tag: 1080, type: 'int32', value: [300, 200, 100] },
        { tag: 1081, type: 'stringArray', value: ['c', 'b', 'a'] },
        { tag: 1082, type: 'stringArray', value: ['third', 'second', 'first'] },
        { tag: 5011, type: 'int32', value: [8] },
      ],
    });
    const parsed = await parseRpm(streamOf(rpm), { changelogLimit: 2 });
    expect(parsed).toMatchObject({ name: 'hello', epoch: 2, version: '1.0', release: '1', arch: 'noarch', sourceRpm: 'hello-1.0-1.src.rpm', fileDigestAlgorithm: 'sha256' });
    expect(parsed.file).toEqual({ size: rpm.length, sha256: createHash('sha256').update(rpm).digest('hex') });
    // rpmlib() and the package's own provides and files are dropped, duplicates too.
    expect(parsed.requires).toEqual([
      { name: '/bin/sh', pre: true },
      { name: 'bash', flags: 'GE', epoch: '0', version: '4.0', pre: false },
    ]);
    expect(parsed.files).toEqual([
      { path: '/usr/bin/hello', type: 'file' },
      { path: '/usr/share/hello', type: 'dir' },
      { path: '/var/log/hello.log', type: 'ghost' },
    ]);
    expect(parsed.changelog).toEqual([{ date: 300, author: 'c', text: 'third' }, { date: 200, author: 'b', text: 'second' }]);
    // 96-byte lead + signature header (16 + 16 + 4 bytes = 36, padded to 40).
    expect(parsed.headerRange.start).toBe(136);
  });

  it('reads ISO-8859-1 header strings as createrepo_c does, so a Latin-1 Requires keeps its characters', async () => {
    const rpm = craftRpm({
      tags: [
        ...minimalRpmTags('latin').filter((tag) => tag.tag !== 1004),
        { tag: 1004, type: 'string', value: 'Caf\u00e9 \u00a9 cr\u00e8me', encoding: 'latin1' },
        { tag: 1049, type: 'stringArray', value: ['\u00e0\u00e1\u00e2\u00e3\u00e4\u00e5\u00e7', 'gr\u00fc\u00dfe'], encoding: 'latin1' },
        { tag: 1048, type: 'int32', value: [0, 0] },
        { tag: 1050, type: 'stringArray', value: ['', ''] },
        { tag: 1081, type: 'stringArray', value: ['J\u00fcrgen \u2013 UTF-8 stays'] },
        { tag: 1080, type: 'int32', value: [100] },
        { tag: 1082, type: 'stringArray', value: ['- Premi\u00e8re'], encoding: 'latin1' },
      ],
    });
    const parsed = await parseRpm(streamOf(rpm));
    expect(parsed.requires.map((requirement) => requirement.name)).toEqual(['àáâãäåç', 'grüße']);
    // createrepo_c drops the bytes 0x80-0xBF (here the © sign) rather than guess at them
    expect(parsed.summary).toBe('Café  crème');
    expect(parsed.changelog).toEqual([{ date: 100, author: 'Jürgen – UTF-8 stays', text: '- Première' }]);
  });

  it.each([
    ['an absurd index count', maliciousRpms.absurdIndexCount, ArtifactFormatErrorCode.invalidRpm, 'index entries'],
    ['an absurd data size', maliciousRpms.absurdDataSize, ArtifactFormatErrorCode.invalidRpm, 'data bytes'],
    ['a truncated header', maliciousRpms.truncatedHeader, ArtifactFormatErrorCode.invalidRpm, 'file ends inside the main header'],
    ['a tag pointing outside the header', maliciousRpms.offsetOutsideHeader, ArtifactFormatErrorCode.invalidRpm, 'points outside the header'],
  ])('refuses %s with a named error', async (_, craft, code, message) => {
    await expect(parseRpm(streamOf(craft()))).rejects.toMatchObject({ code, message: expect.stringContaining(message) });
  });

  it('reads a source package (source lead, no source rpm name) with architecture src, as rpm and createrepo_c name it', async () => {
    const source = craftRpm({ leadType: 'source', tags: minimalRpmTags().filter((tag) => tag.tag !== 1044) });
    expect(await parseRpm(streamOf(source))).toMatchObject({ arch: 'src', sourceRpm: '' });
  });

  it('refuses a package whose lead and header disagree on being a source package', async () => {
    const binaryLead = craftRpm({ tags: minimalRpmTags().filter((tag) => tag.tag !== 1044) });
    await expect(parseRpm(streamOf(binaryLead))).rejects.toMatchObject({ code: ArtifactFormatErrorCode.sourceRpm, message: 'the lead says binary package but the header names no source rpm' });
    await expect(parseRpm(streamOf(maliciousRpms.sourceLeadOverBinaryHeader()))).rejects.toMatchObject({ code: ArtifactFormatErrorCode.sourceRpm, message: 'the lead says source package but the header names a source rpm' });
  });

  it('refuses a file that is not an rpm', async () => {
    await expect(parseRpm(streamOf(Buffer.alloc(200, 7)))).rejects.toThrow('no lead magic');
  });
});

describe('splitEvr', () => {
  it.each([
    ['1.0', { epoch: '0', version: '1.0' }],
    ['2:1.0-3.el9', { epoch: '2', version: '1.0', release: '3.el9' }],
    ['1.0-1-2', { epoch: '0', version: '1.0-1', release: '2' }],
  ])('splits %s', (evr, expected) => {
    expect(splitEvr(evr)).toEqual(expected);
  });
});
