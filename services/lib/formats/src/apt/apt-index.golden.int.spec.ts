import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStanzas as readAptStanzas } from '@packyard/testing/packages/apt-stanzas';
import { buildDeb, type DebSpec } from '@packyard/testing/packages/deb.builder';
import { parseDeb } from '../deb/deb.parser';
import { type AptIndexEntry, buildPackagesIndex, packagesForArchitecture, packagesStanza } from './packages-index.writer';
import { buildRelease } from './release.writer';

const run = promisify(execFile);

const CORPUS: DebSpec[] = [
  { name: 'hello', version: '1.0-1', arch: 'amd64', depends: 'libc6 (>= 2.34)', compression: 'xz' },
  { name: 'hello-doc', version: '1.0-1', arch: 'all', compression: 'gzip' },
  { name: 'hello-data', version: '2:3.1~rc1-0ubuntu2', arch: 'all', description: 'data files\n with a longer description.\n .\n And a second paragraph.', compression: 'zstd' },
  {
    name: 'widget', version: '0.9+git20240101-3', arch: 'amd64', depends: 'hello (= 1.0-1) | hello-doc', compression: 'none',
    // known fields after the description and unknown ones between them: apt-ftparchive reorders the first and keeps the rest in order
    fields: [['X-Zeta', 'last'], ['Homepage', 'https://widget.example'], ['Multi-Arch', 'foreign'], ['Breaks', 'widget-old (<< 0.9)'], ['X-Alpha', 'first'],
      ['Source', 'widget-src'], ['Provides', 'gadget'], ['Pre-Depends', 'dpkg (>= 1.19)'], ['Recommends', 'hello'], ['Built-Using', 'gcc-12 (= 12.2.0-14)'], ['Essential', 'no']],
  },
  { name: 'widget', version: '0.9+git20240101-3', arch: 'arm64', compression: 'xz' },
  { name: 'libacme1', version: '5.2.1-1', arch: 'amd64', depends: 'libc6 (>= 2.17), libstdc++6', compression: 'zstd' },
];

/** Packages-file stanzas keyed by "name arch" */
const readStanzas = (text: string) => readAptStanzas(text, (fields) => `${fields.Package} ${fields.Architecture}`);

describe('APT index writers against apt-ftparchive', () => {
  let root: string;
  let entries: AptIndexEntry[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'packyard-apt-golden-'));
    const files = await Promise.all(CORPUS.map((spec) => buildDeb(spec, join(root, 'pool/main', spec.name[0], spec.name))));
    entries = await Promise.all(
      files.map(async (file) => {
        const deb = await parseDeb(createReadStream(file));
        return { control: deb.control, filename: relative(root, file), file: deb.file };
      }),
    );
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes the same Packages stanzas as apt-ftparchive, field by field and in its field order', async () => {
    const { stdout } = await run('apt-ftparchive', ['packages', 'pool'], { cwd: root });
    const expected = readStanzas(stdout);
    const ours = readStanzas(entries.map(packagesStanza).join(''));
    expect(ours.size).toBe(CORPUS.length);
    expect([...ours.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, fields] of expected) {
      expect({ key, ...ours.get(key) }).toEqual({ key, ...fields });
      expect({ key, order: Object.keys(ours.get(key)!) }).toEqual({ key, order: Object.keys(fields) });
    }
  });

  it('lists the same hashes and sizes as apt-ftparchive release for our index files', async () => {
    const dists = join(root, 'dists/noble');
    const written = [];
    for (const architecture of ['amd64', 'arm64']) {
      const stanzas = packagesForArchitecture(entries, architecture).map((entry) => ({ key: entry.filename, text: packagesStanza(entry) }));
      written.push(...(await buildPackagesIndex(stanzas, { component: 'main', architecture })).files);
    }
    for (const file of written) {
      await mkdir(join(dists, file.path, '..'), { recursive: true });
      await writeFile(join(dists, file.path), file.bytes);
    }
    const ours = buildRelease(written, {
      origin: 'Packyard', label: 'Packyard', suite: 'noble', codename: 'noble', date: new Date(0),
      architectures: ['amd64', 'arm64'], components: ['main'], description: 'golden',
    });
    const { stdout } = await run('apt-ftparchive', ['release', '.'], { cwd: dists });
    const hashLines = (text: string, field: string) => {
      const section = text.split(`\n${field}:\n`)[1]?.split(/\n(?! )/)[0] ?? '';
      return section.split('\n').filter(Boolean).map((line) => line.trim().split(/\s+/).join(' ')).sort();
    };
    for (const field of ['MD5Sum', 'SHA256', 'SHA512']) {
      expect(hashLines(ours, field)).toEqual(hashLines(stdout, field));
      expect(hashLines(ours, field)).toHaveLength(written.length);
    }
  });

  it('puts arch-all packages in every binary index, readable by the real decompressors', async () => {
    const { files } = await buildPackagesIndex(
      packagesForArchitecture(entries, 'arm64').map((entry) => ({ key: entry.filename, text: packagesStanza(entry) })),
      { component: 'main', architecture: 'arm64' },
    );
    const [plain, gz, xz] = files;
    const dir = await mkdtemp(join(tmpdir(), 'packyard-apt-decompress-'));
    try {
      await writeFile(join(dir, 'Packages.gz'), gz.bytes);
      await writeFile(join(dir, 'Packages.xz'), xz.bytes);
      expect((await run('gzip', ['-dc', join(dir, 'Packages.gz')], { encoding: 'buffer' })).stdout).toEqual(plain.bytes);
      expect((await run('xz', ['-dc', join(dir, 'Packages.xz')], { encoding: 'buffer' })).stdout).toEqual(plain.bytes);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect([...readStanzas(plain.bytes.toString()).keys()].sort()).toEqual(['hello-data all', 'hello-doc all', 'widget arm64']);
  });
});
