import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRpm, buildSourceRpm, type RpmSpec } from '@packyard/testing/packages/rpm.builder';
import { parseRpm } from '../rpm/rpm.parser';
import { buildRepodata, type Repodata } from './repodata.writer';
import { yumPackageFragments } from './yum-package.fragments';

const run = promisify(execFile);

const changelog = Array.from({ length: 12 }, (_, i) => ({
  date: `Mon Jan ${String(29 - i * 2).padStart(2, '0')} 2024`,
  author: `Dev ${i} <dev${i}@example.com> - 1.${11 - i}-1`,
  text: `change number ${11 - i} with <markup> & "quotes"`,
}));

const CORPUS: RpmSpec[] = [
  {
    name: 'hello', version: '2.0', release: '1.el9', arch: 'x86_64', epoch: 1,
    requires: ['bash >= 4.0', '(pre) /bin/sh', '(post) coreutils', '(preun) grep', 'libacme = 1:5.2-1', 'hello'],
    provides: ['hello-api = 2.0', 'webserver'],
    files: ['/usr/bin/hello', '/etc/hello/hello.conf', '/usr/share/hello/', '/usr/share/hello/data.txt', '/usr/lib/sendmail'],
    changelog,
  },
  { name: 'hello-doc', version: '2.0', release: '1.el9', arch: 'noarch', requires: ['hello'], files: ['/usr/share/doc/hello-doc/README'] },
  { name: 'acme-tools', version: '0.9', release: '3', arch: 'noarch', requires: ['python3 >= 3.9', 'acme-lib < 2'], files: ['/usr/sbin/acme', '/opt/acme/bin/acmectl'] },
  { name: 'acme-lib', version: '1.4.2', release: '7', arch: 'x86_64', provides: ['libacme.so.1()(64bit)'], files: ['/usr/lib64/libacme.so.1'] },
  { name: 'empty-meta', version: '1', release: '1', arch: 'noarch', files: [] },
  { name: 'dirs-only', version: '3.1', release: '2', arch: 'noarch', files: ['/etc/dirs-only/', '/var/lib/dirs-only/'], changelog: changelog.slice(0, 2) },
  // built in ISO-8859-1, as older packages were: every header string is Latin-1 bytes
  {
    name: 'latin1-legacy', version: '1.0', release: '1', arch: 'noarch', encoding: 'latin1',
    summary: 'Caf\u00e9 cr\u00e8me \u00a9 2004 \u00e0 la carte',
    requires: ['\u00e0\u00e1\u00e2\u00e3\u00e4\u00e5\u00e7', 'gr\u00fc\u00dfe >= 1.0'],
    provides: ['latin-\u00e9t\u00e9'],
    files: ['/usr/share/latin1-legacy/caf\u00e9.txt', '/usr/share/latin1-legacy/\u00b0degrees.txt'],
    changelog: [{ date: 'Mon Jan 01 2024', author: 'J\u00fcrgen M\u00fcller <j@example.invalid> - 1.0-1', text: 'Premi\u00e8re version, na\u00efve \u00fcber' }],
  },
];

/** source packages (rpmbuild -bs): createrepo_c lists them with arch src and no sourcerpm */
const SOURCE_CORPUS: RpmSpec[] = [
  { name: 'srpm-only', version: '3.0', release: '2', arch: 'noarch', requires: ['bash >= 4.0'], files: ['/usr/share/srpm-only/data.txt'], changelog: changelog.slice(0, 3) },
];

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const decode = (text: string) =>
  text.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-fA-F]+);/g, (_, entity: string) =>
    ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[entity] ?? String.fromCodePoint(Number(entity.startsWith('#x') ? `0x${entity.slice(2)}` : entity.slice(1))));

/** A tiny XML reader, enough for repodata: elements, attributes, text; no DTDs or CDATA. */
function parseXml(xml: string): XmlElement {
  const root: XmlElement = { name: '#root', attributes: {}, children: [], text: '' };
  const stack = [root];
  for (const token of xml.replace(/<\?xml[^>]*\?>/, '').match(/<[^>]+>|[^<]+/g) ?? []) {
    const top = stack[stack.length - 1];
    if (token.startsWith('</')) stack.pop();
    else if (token.startsWith('<')) {
      const [, name, rest] = /^<([\w:-]+)([\s\S]*?)\/?>$/.exec(token)!;
      const attributes: Record<string, string> = {};
      for (const [, key, value] of rest.matchAll(/([\w:-]+)="([^"]*)"/g)) attributes[key] = decode(value);
      const element = { name, attributes, children: [], text: '' };
      top.children.push(element);
      if (!token.endsWith('/>')) stack.push(element);
    } else top.text += decode(token);
  }
  return root.children[0];
}

/** Element tree without insignificant whitespace, for deep comparison. */
const normalise = (element: XmlElement): unknown => ({
  name: element.name,
  attributes: element.attributes,
  ...(element.children.length ? { children: element.children.map(normalise) } : { text: element.text }),
});

const packagesByName = (document: XmlElement) =>
  new Map(document.children.map((element) => [element.attributes.name ?? element.children.find((child) => child.name === 'name')!.text, normalise(element)]));

describe('YUM repodata writers against createrepo_c', () => {
  let root: string;
  let ours: Repodata;
  const theirs: Record<string, XmlElement> = {};

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'packyard-yum-golden-'));
    const files = [];
    for (const spec of CORPUS) files.push(await buildRpm(spec, root));
    for (const spec of SOURCE_CORPUS) files.push(await buildSourceRpm(spec, root));
    await run('createrepo_c', ['--no-database', '--quiet', root]);
    const repomd = parseXml(await readFile(join(root, 'repodata/repomd.xml'), 'utf8'));
    for (const data of repomd.children.filter((child) => child.name === 'data')) {
      const href = data.children.find((child) => child.name === 'location')!.attributes.href;
      theirs[data.attributes.type] = parseXml(gunzipSync(await readFile(join(root, href))).toString('utf8'));
    }
    const fragments = await Promise.all(
      files.map(async (file) => {
        const rpm = await parseRpm(createReadStream(file));
        return { key: basename(file), fragments: yumPackageFragments({ rpm, location: basename(file), fileTime: Math.floor((await stat(file)).mtimeMs / 1000) }) };
      }),
    );
    ours = await buildRepodata(fragments, { revision: '1', timestamp: 1 });
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const ourDocument = (type: string) => {
    const file = ours.files.find((candidate) => candidate.path.endsWith(`-${type}.xml.gz`))!;
    return parseXml(gunzipSync(file.bytes).toString('utf8'));
  };

  it.each(['primary', 'filelists', 'other'])('writes the same %s.xml as createrepo_c, element by element', (type) => {
    const expected = theirs[type];
    const actual = ourDocument(type);
    expect({ name: actual.name, attributes: actual.attributes }).toEqual({ name: expected.name, attributes: expected.attributes });
    const expectedPackages = packagesByName(expected);
    const actualPackages = packagesByName(actual);
    expect([...actualPackages.keys()].sort()).toEqual([...CORPUS, ...SOURCE_CORPUS].map((spec) => spec.name).sort());
    for (const [name, element] of expectedPackages) expect(actualPackages.get(name)).toEqual(element);
  });

  it('converts the Latin-1 package’s strings to the characters they stand for', () => {
    const latin = ourDocument('primary').children.find((element) => element.children.some((child) => child.name === 'name' && child.text === 'latin1-legacy'))!;
    const requires = latin.children.find((child) => child.name === 'format')!.children.find((child) => child.name === 'rpm:requires')!;
    expect(requires.children.map((entry) => entry.attributes.name)).toContain('\u00e0\u00e1\u00e2\u00e3\u00e4\u00e5\u00e7');
    expect(latin.children.find((child) => child.name === 'summary')!.text).not.toContain('\ufffd');
  });

  it('keeps the 10 newest changelog entries like createrepo_c', () => {
    const hello = ourDocument('other').children.find((element) => element.attributes.name === 'hello')!;
    expect(hello.children.filter((child) => child.name === 'changelog')).toHaveLength(10);
  });

  it('declares the same namespaces in repomd.xml and names files by their sha256', async () => {
    const expected = parseXml(await readFile(join(root, 'repodata/repomd.xml'), 'utf8'));
    const actual = parseXml(ours.repomd.bytes.toString());
    expect(actual.attributes).toEqual(expected.attributes);
    for (const data of actual.children.filter((child) => child.name === 'data')) {
      const checksum = data.children.find((child) => child.name === 'checksum')!.text;
      expect(data.children.find((child) => child.name === 'location')!.attributes.href).toBe(`repodata/${checksum}-${data.attributes.type}.xml.gz`);
    }
    expect((await readdir(join(root, 'repodata'))).some((name) => /^[0-9a-f]{64}-primary\.xml\.gz$/.test(name))).toBe(true);
  });
});
