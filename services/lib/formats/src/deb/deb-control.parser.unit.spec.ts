import { describe, expect, it } from 'vitest';
import { isValidDebianVersion, parseControlFile } from './deb-control.parser';

const valid = 'Package: hello\nVersion: 1.0-1\nArchitecture: amd64\nDescription: greets\n the world\n .\n twice\n';

describe('parseControlFile', () => {
  it('keeps every field in file order with continuation lines verbatim', () => {
    expect(parseControlFile(`${valid}Homepage: https://example.com\n`)).toEqual([
      { name: 'Package', value: 'hello' },
      { name: 'Version', value: '1.0-1' },
      { name: 'Architecture', value: 'amd64' },
      { name: 'Description', value: 'greets\n the world\n .\n twice' },
      { name: 'Homepage', value: 'https://example.com' },
    ]);
  });

  it('tolerates blank lines around the single stanza', () => {
    expect(parseControlFile(`\n\n${valid}\n \n`)).toHaveLength(4);
  });

  it.each([
    ['a second stanza', `${valid}\nPackage: evil\n`, 'control file has a second stanza'],
    ['a smuggled Filename field', `${valid}Filename: pool/evil.deb\n`, 'must not set the index field Filename'],
    ['a smuggled checksum, any case', `${valid}sha256: 00\n`, 'must not set the index field sha256'],
    ['a carriage return', valid.replace('amd64', 'amd64\rFilename: x'), 'carriage return'],
    ['a repeated field', `${valid}package: again\n`, 'repeats the field package'],
    ['a comment line', `# hi\n${valid}`, 'comment line'],
    ['a line without a colon', `${valid}nonsense\n`, 'is not a "Field: value" line'],
    ['a leading continuation line', ` x\n${valid}`, 'starts with a continuation line'],
    ['a field name starting with "-"', `${valid}-X: y\n`, 'is not a "Field: value" line'],
    ['no Version', 'Package: hello\nArchitecture: amd64\n', 'has no Version field'],
    ['an invalid package name', valid.replace('Package: hello', 'Package: Hello_World'), 'not a valid Debian package name'],
    ['a one-character package name', valid.replace('Package: hello', 'Package: h'), 'not a valid Debian package name'],
    ['an invalid version', valid.replace('1.0-1', 'abc'), 'not a valid Debian version'],
    ['an architecture list', valid.replace('amd64', 'amd64 i386'), 'not a single Debian architecture'],
    ['a multi-line Package', valid.replace('Package: hello', 'Package: hello\n evil'), 'must be a single line'],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseControlFile(text)).toThrow(message);
  });
});

describe('isValidDebianVersion (Policy §5.6.12)', () => {
  it.each(['1.0', '1:2.0-1', '2.0~rc1-0ubuntu1', '1.0-1-2', '0.1+git20240101-1.1', '10:1'])('accepts %s', (version) => {
    expect(isValidDebianVersion(version)).toBe(true);
  });
  it.each(['', 'a1.0', '1.0-', 'x:1.0', '1.0 1', '1.0_1', '-1'])('refuses %j', (version) => {
    expect(isValidDebianVersion(version)).toBe(false);
  });
});
