import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { writeAr, writeTar } from '@packyard/testing/packages/archive-bytes.writer';
import { craftDeb, maliciousDebs, validControlText } from '@packyard/testing/packages/deb-crafting';
import { ArtifactFormatErrorCode } from '../common/artifact-format.error';
import { parseDeb } from './deb.parser';

// Small chunks prove the parser reassembles headers and members across chunk borders.
const streamOf = (bytes: Buffer, chunkSize = 7) =>
  Readable.from((function* () {
    for (let at = 0; at < bytes.length; at += chunkSize) yield bytes.subarray(at, at + chunkSize);
  })());

describe('parseDeb', () => {
  it('reads the control fields and hashes the whole file', async () => {
    const deb = await craftDeb({ control: validControlText('hello', '1:2.0-1', 'all') });
    const parsed = await parseDeb(streamOf(deb));
    expect(parsed).toMatchObject({ name: 'hello', version: '1:2.0-1', architecture: 'all', controlCompression: 'gzip', dataCompression: 'gzip' });
    expect(parsed.control.map((field) => field.name)).toEqual(['Package', 'Version', 'Architecture', 'Maintainer', 'Description']);
    expect(parsed.file).toEqual({
      size: deb.length,
      md5: createHash('md5').update(deb).digest('hex'),
      sha1: createHash('sha1').update(deb).digest('hex'),
      sha256: createHash('sha256').update(deb).digest('hex'),
      sha512: createHash('sha512').update(deb).digest('hex'),
    });
  });

  it('reads an uncompressed control.tar and skips "_"-prefixed extension members', async () => {
    const controlTar = await writeTar([{ name: 'control', data: validControlText() }]);
    const deb = writeAr([
      { name: 'debian-binary', data: '2.0\n' },
      { name: '_gpgorigin', data: 'signature' },
      { name: 'control.tar', data: controlTar },
      { name: 'data.tar.gz', data: gzipSync(await writeTar([])) },
    ]);
    expect((await parseDeb(streamOf(deb, 4096))).name).toBe('crafted');
  });

  it.each([
    ['a second stanza smuggling Filename', maliciousDebs.secondStanzaSmugglingFilename, ArtifactFormatErrorCode.invalidControl, 'second stanza'],
    ['a newline-injected index field', maliciousDebs.newlineInjectedField, ArtifactFormatErrorCode.invalidControl, 'index field SHA256'],
    ['a carriage-return-injected field', maliciousDebs.carriageReturnInjectedField, ArtifactFormatErrorCode.invalidControl, 'carriage return'],
    ['a control file that is not UTF-8', maliciousDebs.latin1Control, ArtifactFormatErrorCode.invalidControl, 'not valid UTF-8'],
    ['a gzip bomb as control.tar', maliciousDebs.gzipBombControlTar, ArtifactFormatErrorCode.decompressionLimit, 'decompresses to more than'],
    ['a missing debian-binary', maliciousDebs.missingDebianBinary, ArtifactFormatErrorCode.invalidDeb, 'first member of a .deb must be debian-binary'],
    ['format version 3.0', maliciousDebs.unsupportedFormatVersion, ArtifactFormatErrorCode.invalidDeb, 'unsupported .deb format version'],
  ])('refuses %s with a named error', async (_, craft, code, message) => {
    await expect(parseDeb(streamOf(await craft(), 65536))).rejects.toMatchObject({ code, message: expect.stringContaining(message) });
  });

  it('refuses a file that is not an ar archive', async () => {
    await expect(parseDeb(streamOf(Buffer.from('%PDF-1.7 not a package')))).rejects.toMatchObject({ code: ArtifactFormatErrorCode.invalidDeb });
  });

  it('refuses a truncated .deb', async () => {
    const deb = await craftDeb({ control: validControlText() });
    await expect(parseDeb(streamOf(deb.subarray(0, deb.length - 20)))).rejects.toThrow('file ends inside');
  });

  it('refuses a .deb without data.tar', async () => {
    const deb = writeAr([{ name: 'debian-binary', data: '2.0\n' }, { name: 'control.tar.gz', data: gzipSync(await writeTar([{ name: './control', data: validControlText() }])) }]);
    await expect(parseDeb(streamOf(deb))).rejects.toThrow('no data.tar member');
  });

  it('refuses a control.tar member above the stored-size limit before reading it', async () => {
    const deb = await craftDeb({ control: validControlText() });
    await expect(parseDeb(streamOf(deb), { maxControlMemberBytes: 16 })).rejects.toMatchObject({ code: ArtifactFormatErrorCode.decompressionLimit });
  });

  it('refuses a package above the size limit while streaming', async () => {
    const deb = await craftDeb({ control: validControlText(), dataFiles: [{ name: './big', data: randomBytes(200_000) }] });
    await expect(parseDeb(streamOf(deb, 1024), { maxPackageBytes: 10_000 })).rejects.toMatchObject({ code: ArtifactFormatErrorCode.tooLarge });
  });
});
