import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type AptIndexEntry, buildPackagesIndex, packagesForArchitecture, packagesStanza, publishedArchitectures } from './packages-index.writer';
import { buildRelease, byHashPaths, rfc2822Utc } from './release.writer';

const entry = (name: string, architecture: string): AptIndexEntry => ({
  control: [
    { name: 'Package', value: name },
    { name: 'Version', value: '1.0-1' },
    { name: 'Architecture', value: architecture },
    { name: 'Description', value: 'greets\n the world' },
  ],
  filename: `pool/main/${name[0]}/${name}/${name}_1.0-1_${architecture}.deb`,
  file: { size: 1234, md5: 'a'.repeat(32), sha1: 'b'.repeat(40), sha256: 'c'.repeat(64), sha512: 'd'.repeat(128) },
});

describe('packagesStanza', () => {
  it('is the control fields, Filename, Size and the digests in apt-ftparchive’s order, then a blank line', () => {
    expect(packagesStanza(entry('hello', 'amd64'))).toBe(
      'Package: hello\nArchitecture: amd64\nVersion: 1.0-1\n' +
        'Filename: pool/main/h/hello/hello_1.0-1_amd64.deb\nSize: 1234\n' +
        `MD5sum: ${'a'.repeat(32)}\nSHA1: ${'b'.repeat(40)}\nSHA256: ${'c'.repeat(64)}\nSHA512: ${'d'.repeat(128)}\n` +
        'Description: greets\n the world\n\n',
    );
  });

  it('puts fields apt-ftparchive does not know last, in the package’s own order', () => {
    const control = [{ name: 'X-Zeta', value: 'z' }, { name: 'Package', value: 'hello' }, { name: 'x-alpha', value: 'a' }, { name: 'depends', value: 'libc6' }];
    const names = packagesStanza({ ...entry('hello', 'amd64'), control }).split('\n').map((line) => line.slice(0, line.indexOf(':')));
    expect(names).toEqual(['Package', 'depends', 'Filename', 'Size', 'MD5sum', 'SHA1', 'SHA256', 'SHA512', 'X-Zeta', 'x-alpha', '', '']);
  });

  it('writes a value that starts on the next line without a trailing space', () => {
    const stanza = packagesStanza({ ...entry('hello', 'amd64'), control: [{ name: 'Package', value: 'hello' }, { name: 'Description', value: '\n text' }] });
    expect(stanza.endsWith(`SHA512: ${'d'.repeat(128)}\nDescription:\n text\n\n`)).toBe(true);
  });

  it('refuses a pool filename that would break the stanza', () => {
    expect(() => packagesStanza({ ...entry('hello', 'amd64'), filename: 'pool/x.deb\nSize: 1' })).toThrow('single line');
  });
});

describe('architectures', () => {
  const entries = [entry('a', 'amd64'), entry('b', 'all'), entry('c', 'arm64'), entry('d', 'riscv64')];

  it('puts Architecture: all packages into every binary-<arch> index', () => {
    expect(packagesForArchitecture(entries, 'amd64').map((e) => e.control[0].value)).toEqual(['a', 'b']);
    expect(packagesForArchitecture(entries, 'i386').map((e) => e.control[0].value)).toEqual(['b']);
  });

  it('publishes every concrete architecture plus the usual ones, never "all"', () => {
    expect(publishedArchitectures(entries)).toEqual(['amd64', 'arm64', 'riscv64']);
    expect(publishedArchitectures([entry('b', 'all')], ['amd64'])).toEqual(['amd64']);
  });
});

const digest = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

describe('buildPackagesIndex', () => {
  const stanzas = [entry('a', 'amd64'), entry('b', 'all')].map(packagesStanza);
  const pieces = stanzas.map((text, index) => ({ key: String(index), text }));

  it('writes Packages, .gz and .xz with the same content and correct digests', async () => {
    const { files, listed } = await buildPackagesIndex(pieces, { component: 'main', architecture: 'amd64' });
    expect(listed).toEqual(files);
    expect(files.map((file) => file.path)).toEqual(['main/binary-amd64/Packages', 'main/binary-amd64/Packages.gz', 'main/binary-amd64/Packages.xz']);
    const [plain, gz, xzFile] = files;
    expect(plain.bytes.toString()).toBe(stanzas.join(''));
    expect(gunzipSync(gz.bytes)).toEqual(plain.bytes);
    // what apt's own decompressor, xz(1), reads
    expect(execFileSync('xz', ['--decompress', '--stdout'], { input: xzFile.bytes })).toEqual(plain.bytes);
    for (const file of files) {
      expect(file.size).toBe(file.bytes.length);
      expect(file.sha256).toBe(createHash('sha256').update(file.bytes).digest('hex'));
      expect(file.md5).toBe(createHash('md5').update(file.bytes).digest('hex'));
    }
  });

  it('by default writes Packages.xz for an index of some hundred packages, not for one of a few hundred (where it would slow every publication)', async () => {
    const many = (count: number) => Array.from({ length: count }, (_, index) => ({ key: String(index), text: packagesStanza(entry(`package-${index}`, 'amd64')) }));
    const paths = async (count: number) => (await buildPackagesIndex(many(count), { component: 'main', architecture: 'amd64' })).files.map((file) => file.path);
    expect(await paths(100)).toContain('main/binary-amd64/Packages.xz');
    expect(await paths(400)).toEqual(['main/binary-amd64/Packages', 'main/binary-amd64/Packages.gz']);
  });

  it('leaves Packages.xz out above the size threshold', async () => {
    const { files } = await buildPackagesIndex(pieces, { component: 'main', architecture: 'amd64', xzMaxPlainBytes: 10 });
    expect(files.map((file) => file.path)).toEqual(['main/binary-amd64/Packages', 'main/binary-amd64/Packages.gz']);
  });

  it('above the plain threshold stores the compressed index only, and lists the plain one as it would be', async () => {
    const { files, listed } = await buildPackagesIndex(pieces, { component: 'main', architecture: 'amd64', xzMaxPlainBytes: 10, plainMaxBytes: 10 });
    expect(files.map((file) => file.path)).toEqual(['main/binary-amd64/Packages.gz']);
    const plain = Buffer.from(stanzas.join(''));
    expect(listed).toEqual([
      { path: 'main/binary-amd64/Packages', size: plain.length, md5: digest('md5', plain), sha256: digest('sha256', plain), sha512: digest('sha512', plain) },
      files[0],
    ]);
    expect(gunzipSync(files[0].bytes)).toEqual(plain);
  });
});

describe('buildRelease', () => {
  const files = [
    { path: 'main/binary-amd64/Packages.gz', size: 7, md5: 'm2', sha256: 's2', sha512: 'l2' },
    { path: 'main/binary-amd64/Packages', size: 12345, md5: 'm1', sha256: 's1', sha512: 'l1' },
  ];
  const options = {
    origin: 'Packyard', label: 'acme/tools', suite: 'noble', codename: 'noble', date: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)),
    architectures: ['amd64', 'arm64'], components: ['main'], description: 'acme tools for ubuntu noble',
  };

  it('writes the fields in Debian order and lists every file under each hash', () => {
    expect(buildRelease(files, options)).toBe(
      'Origin: Packyard\nLabel: acme/tools\nSuite: noble\nCodename: noble\nDate: Tue, 02 Jan 2024 03:04:05 UTC\n' +
        'Acquire-By-Hash: yes\nNo-Support-for-Architecture-all: Packages\nArchitectures: amd64 arm64\nComponents: main\n' +
        'Description: acme tools for ubuntu noble\n' +
        'MD5Sum:\n m1 12345 main/binary-amd64/Packages\n m2     7 main/binary-amd64/Packages.gz\n' +
        'SHA256:\n s1 12345 main/binary-amd64/Packages\n s2     7 main/binary-amd64/Packages.gz\n' +
        'SHA512:\n l1 12345 main/binary-amd64/Packages\n l2     7 main/binary-amd64/Packages.gz\n',
    );
  });

  it('can leave MD5Sum out and adds Valid-Until after Date', () => {
    const text = buildRelease(files, { ...options, includeMd5: false, validUntil: new Date(Date.UTC(2024, 0, 9)) });
    expect(text).not.toContain('MD5Sum');
    expect(text).toContain('Date: Tue, 02 Jan 2024 03:04:05 UTC\nValid-Until: Tue, 09 Jan 2024 00:00:00 UTC\n');
  });

  it('refuses a value that would inject a field', () => {
    expect(() => buildRelease(files, { ...options, label: 'x\nOrigin: evil' })).toThrow('single line');
  });

  it('names the by-hash path of a file for each listed hash', () => {
    expect(byHashPaths(files[1])).toEqual([
      'main/binary-amd64/by-hash/MD5Sum/m1',
      'main/binary-amd64/by-hash/SHA256/s1',
      'main/binary-amd64/by-hash/SHA512/l1',
    ]);
    expect(byHashPaths(files[1], { includeMd5: false })).toHaveLength(2);
  });

  it('formats dates as RFC 2822 in UTC', () => {
    expect(rfc2822Utc(new Date(Date.UTC(2026, 10, 22, 2, 51, 40)))).toBe('Sun, 22 Nov 2026 02:51:40 UTC');
  });
});
