import { execFile } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { writeAr, writeTar } from '@packyard/testing/packages/archive-bytes.writer';
import { buildDeb } from '@packyard/testing/packages/deb.builder';
import { validControlText } from '@packyard/testing/packages/deb-crafting';
import { createHash } from 'node:crypto';
import { parseDeb } from './deb.parser';

// The file list of a .deb's data.tar, read while the upload streams past, against what
// dpkg-deb itself lists for the same file.

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'packyard-deb-listing-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const files = { 'usr/bin/hello': '#!/bin/sh\necho hello\n', 'etc/hello/hello.conf': 'greeting=hi\n', 'usr/lib/hello/a-very-long-directory-name-that-needs-more-than-one-hundred-characters-in-a-plain-tar-header/data.bin': 'x' };

/** `dpkg-deb -c`: the reference listing, without directories */
async function dpkgListing(file: string): Promise<string[]> {
  const { stdout } = await run('dpkg-deb', ['-c', file]);
  return stdout
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('d'))
    .map((line) => line.slice(line.indexOf(' ./') + 2).replace(/ -> .*$/, ''));
}

describe('the file list of a .deb', () => {
  it.each(['gzip', 'xz', 'zstd', 'none'] as const)('matches dpkg-deb -c for data.tar compressed with %s', async (compression) => {
    const file = await buildDeb({ name: `listed-${compression}`, version: '1.0', arch: 'all', compression, files }, work);
    const parsed = await parseDeb(createReadStream(file));
    expect(parsed.contents.paths).toEqual(await dpkgListing(file));
    expect(parsed.contents.paths).toContain('/usr/bin/hello');
    expect(parsed.contents).toMatchObject({ total: 4 });
    expect(parsed.contents.note).toBeUndefined();
    expect(parsed.file.sha256).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
  });

  it('keeps the first paths and says how many there are when the list is cut', async () => {
    const file = await buildDeb({ name: 'many', version: '1.0', arch: 'all', files }, work);
    const parsed = await parseDeb(createReadStream(file), { maxPaths: 2 });
    expect(parsed.contents).toEqual({ paths: (await dpkgListing(file)).slice(0, 2), total: 4, note: 'the first 2 of 4 files are listed' });
  });

  it('stops reading a data.tar that inflates past the limit, and still hashes the whole file', async () => {
    const bomb = gzipSync(await writeTar([{ name: './usr/share/zeros', data: Buffer.alloc(8 * 1024 * 1024) }]));
    const deb = writeAr([
      { name: 'debian-binary', data: '2.0\n' },
      { name: 'control.tar.gz', data: gzipSync(await writeTar([{ name: './control', data: validControlText() }])) },
      { name: 'data.tar.gz', data: bomb },
    ]);
    const parsed = await parseDeb(Readable.from([deb]), { maxTarBytes: 1024 * 1024 });
    expect(parsed.contents.note).toBe('the list stops after 1048576 bytes of data.tar');
    expect(parsed.file).toMatchObject({ size: deb.length, sha256: createHash('sha256').update(deb).digest('hex') });
  });

  it('accepts a package whose data.tar does not decompress, with a note instead of a list', async () => {
    const deb = writeAr([
      { name: 'debian-binary', data: '2.0\n' },
      { name: 'control.tar.gz', data: gzipSync(await writeTar([{ name: './control', data: validControlText() }])) },
      { name: 'data.tar.xz', data: Buffer.from('not xz at all') },
    ]);
    const parsed = await parseDeb(Readable.from([deb]));
    expect(parsed.name).toBe('crafted');
    expect(parsed.contents).toMatchObject({ paths: [], total: 0, note: expect.stringContaining('the file list could not be read') });
    expect(parsed.file.size).toBe(deb.length);
  });
});
