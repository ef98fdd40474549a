import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSourcePackage, type SourcePackageSpec } from '@packyard/testing/packages/source-package.builder';
import { parseDsc } from '../deb/dsc.parser';
import { sourcesStanza, type SourceIndexEntry, type SourceIndexFile } from './sources-index.writer';

const run = promisify(execFile);

const CORPUS: SourcePackageSpec[] = [
  // fields dpkg-source copies in its own order, which apt-ftparchive reorders
  { name: 'hello', upstreamVersion: '1.0', fields: [['Vcs-Git', 'https://git.example/hello.git'], ['Homepage', 'https://hello.example'], ['Testsuite', 'autopkgtest'], ['Rules-Requires-Root', 'no']] },
  { name: 'libwidget', upstreamVersion: '2.3+dfsg', fields: [['Build-Depends-Indep', 'python3'], ['Uploaders', 'Someone <someone@example.com>']] },
  { name: 'toolbox', upstreamVersion: '0.9', format: '3.0 (native)' },
];

const digests = async (path: string): Promise<SourceIndexFile> => {
  const bytes = await readFile(path);
  const hex = (algorithm: string) => createHash(algorithm).update(bytes).digest('hex');
  return { name: basename(path), size: bytes.length, md5: hex('md5'), sha1: hex('sha1'), sha256: hex('sha256'), sha512: hex('sha512') };
};

describe('Sources stanzas against apt-ftparchive', () => {
  let root: string;
  let entries: SourceIndexEntry[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'packyard-sources-golden-'));
    entries = await Promise.all(
      CORPUS.map(async (spec) => {
        const directory = `pool/main/${spec.name[0]}/${spec.name}`;
        const built = await buildSourcePackage(spec, join(root, directory));
        const dsc = parseDsc(await readFile(built.dsc));
        const files = [await digests(built.dsc), ...(await Promise.all(dsc.files.map((file) => digests(join(root, directory, file.name)))))];
        return { control: dsc.control, directory, files };
      }),
    );
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes the very stanzas apt-ftparchive sources writes, byte for byte', async () => {
    const { stdout } = await run('apt-ftparchive', ['sources', 'pool'], { cwd: root });
    const byPackage = (text: string) => new Map(text.split(/\n\n+/).filter((part) => part.trim()).map((stanza) => [/^Package: (.*)$/m.exec(stanza)![1], `${stanza.trimEnd()}\n`]));
    const expected = byPackage(stdout);
    const ours = byPackage(entries.map(sourcesStanza).join(''));
    expect([...ours.keys()].sort()).toEqual(['hello', 'libwidget', 'toolbox']);
    expect([...expected.keys()].sort()).toEqual(['hello', 'libwidget', 'toolbox']);
    for (const [name, stanza] of expected) expect({ name, stanza: ours.get(name) }).toEqual({ name, stanza });
  });
});
