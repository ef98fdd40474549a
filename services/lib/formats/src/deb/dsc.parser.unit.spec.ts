import { describe, expect, it } from 'vitest';
import { parseDsc } from './dsc.parser';

const MD5 = 'b34181aa0752623cb2905aee01d871f8';
const SHA1 = '79536d7580fc53ebb21f2f8267052e92ac357990';
const SHA256 = '3cda413db783fbaff0e33af090f436f3a17469e76831d69ee3b3f0f81001c267';
const ORIG_SHA256 = '780503c6d4db7b335fe1ceaf028ca3413c59a174228d5c2f910796e8eeb17d22';

const dsc = (extra = '') =>
  [
    'Format: 3.0 (quilt)',
    'Source: hello',
    'Binary: hello',
    'Architecture: all',
    'Version: 1.0-1',
    'Maintainer: Jane Doe <jane@example.com>',
    'Package-List:',
    ' hello deb utils optional arch=all',
    'Checksums-Sha1:',
    ` d30c885773e9e581b8f8fd59f82fa726e58a3483 161 hello_1.0.orig.tar.gz`,
    ` ${SHA1} 536 hello_1.0-1.debian.tar.xz`,
    'Checksums-Sha256:',
    ` ${ORIG_SHA256} 161 hello_1.0.orig.tar.gz`,
    ` ${SHA256} 536 hello_1.0-1.debian.tar.xz`,
    'Files:',
    ' 4da6c4b2145ef97082e7d7b7a0aad569 161 hello_1.0.orig.tar.gz',
    ` ${MD5} 536 hello_1.0-1.debian.tar.xz`,
    extra,
  ].join('\n');

describe('parseDsc', () => {
  it('reads the identity, the fields apart from the file lists, and every listed file with its digests', () => {
    const parsed = parseDsc(Buffer.from(dsc()));
    expect(parsed).toMatchObject({ name: 'hello', version: '1.0-1' });
    expect(parsed.control.map((field) => field.name)).toEqual(['Format', 'Source', 'Binary', 'Architecture', 'Version', 'Maintainer', 'Package-List']);
    expect(parsed.files).toEqual([
      { name: 'hello_1.0.orig.tar.gz', size: 161, md5: '4da6c4b2145ef97082e7d7b7a0aad569', sha1: 'd30c885773e9e581b8f8fd59f82fa726e58a3483', sha256: ORIG_SHA256 },
      { name: 'hello_1.0-1.debian.tar.xz', size: 536, md5: MD5, sha1: SHA1, sha256: SHA256 },
    ]);
  });

  it('reads the signed text of a clearsigned .dsc, dash-escaping undone', () => {
    const signed = `-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n${dsc()}\n-----BEGIN PGP SIGNATURE-----\n\niQIzBAEBCgAdFiEE\n-----END PGP SIGNATURE-----\n`;
    expect(parseDsc(Buffer.from(signed))).toEqual(parseDsc(Buffer.from(dsc())));
    const escaped = `-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n${dsc('- X-Note: dash escaped')}\n-----BEGIN PGP SIGNATURE-----\n-----END PGP SIGNATURE-----\n`;
    expect(parseDsc(Buffer.from(escaped)).control.at(-1)).toEqual({ name: 'X-Note', value: 'dash escaped' });
  });

  it.each([
    ['no Files field', dsc().replace(/Files:\n.*\n.*\n/, ''), '.dsc has no Files field'],
    ['no Checksums-Sha256', dsc().replace(/Checksums-Sha256:\n.*\n.*\n/, ''), '.dsc has no Checksums-Sha256 field'],
    ['no Source', dsc().replace('Source: hello\n', ''), '.dsc has no Source field'],
    ['a bad version', dsc().replace('Version: 1.0-1', 'Version: one'), '"one" is not a valid Debian version'],
    ['a path as a file name', dsc().replace(` ${MD5} 536 hello_1.0-1.debian.tar.xz`, ` ${MD5} 536 ../../etc/passwd`), 'is not a plain file name'],
    ['a file of another package', dsc().replaceAll('hello_1.0-1.debian.tar.xz', 'other_1.0-1.debian.tar.xz'), 'not a file of the source package hello'],
    ['a binary package among the files', dsc().replaceAll('hello_1.0-1.debian.tar.xz', 'hello_1.0-1_amd64.deb'), 'hello_1.0-1_amd64.deb, which is a package, not a source file'],
    ['a file missing from Checksums-Sha256', dsc().replace(` ${SHA256} 536 hello_1.0-1.debian.tar.xz\n`, ''), 'lists hello_1.0-1.debian.tar.xz in Files but not in Checksums-Sha256'],
    ['two sizes for one file', dsc().replace(` ${SHA256} 536 `, ` ${SHA256} 537 `), 'gives hello_1.0-1.debian.tar.xz two sizes'],
    ['a malformed checksum line', dsc().replace(` ${SHA256} 536 `, ' xyz 536 '), 'Checksums-Sha256 has a malformed line'],
    ['a smuggled Directory', dsc('Directory: pool/evil'), 'must not set the index fields'],
    ['a second stanza', dsc('\nSource: evil'), '.dsc has a second stanza'],
    ['a signed message without its signature', `-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n${dsc()}`, 'has no signature block'],
  ])('refuses %s', (_case, text, message) => {
    expect(() => parseDsc(Buffer.from(text))).toThrow(message);
  });

  it('refuses text that is not UTF-8', () => {
    expect(() => parseDsc(Buffer.concat([Buffer.from(dsc()), Buffer.from([0xff, 0xfe])]))).toThrow('.dsc is not valid UTF-8');
  });
});
