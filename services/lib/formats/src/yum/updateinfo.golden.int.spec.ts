import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolsUnavailable } from '@packyard/testing/servers/daemon';
import { buildRepodata } from './repodata.writer';
import { buildUpdateinfo } from './updateinfo.writer';

const run = promisify(execFile);
const missing = toolsUnavailable(['createrepo_c', 'modifyrepo_c'], ['createrepo-c']);

/** the `<data type="…">` record of a repomd.xml, with the digests and sizes that describe the open file */
function record(repomd: string, type: string): { location: string; openChecksum: string; openSize: string } {
  const data = new RegExp(`<data type="${type}">([\\s\\S]*?)</data>`).exec(repomd)?.[1] ?? '';
  return {
    location: /<location href="([^"]+)"/.exec(data)?.[1] ?? '',
    openChecksum: /<open-checksum type="sha256">([0-9a-f]+)</.exec(data)?.[1] ?? '',
    openSize: /<open-size>(\d+)</.exec(data)?.[1] ?? '',
  };
}

// modifyrepo_c is how createrepo_c users add updateinfo.xml to a repository: ours must be
// the same record for the same file (the gzip bytes differ with the compressor's settings).
describe.skipIf(missing !== undefined)(`updateinfo.xml against modifyrepo_c${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'packyard-updateinfo-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('lists the same open file under the same type, gzipped and named by digest', async () => {
    const xml = buildUpdateinfo(
      [
        {
          id: 'PKY-2026-0001', type: 'security', severity: 'Critical', title: 'ünïcode & <markup>', description: 'line one\nline two',
          issuedAt: '2026-01-02T03:04:05Z', updatedAt: '2026-01-02T03:04:05Z',
          references: [{ type: 'cve', id: 'CVE-2026-0001', href: 'https://www.cve.org/CVERecord?id=CVE-2026-0001', title: 'CVE-2026-0001' }],
          packages: [{ name: 'hello', epoch: 0, version: '1.0', release: '2', arch: 'noarch' }],
        },
      ],
      { from: 'Packyard acme/tools', collection: { short: 'el-9', name: 'el 9' } },
    );
    await run('createrepo_c', ['--quiet', '--no-database', dir]);
    await writeFile(join(dir, 'updateinfo.xml'), xml);
    await run('modifyrepo_c', [join(dir, 'updateinfo.xml'), join(dir, 'repodata')]);
    const theirs = record(await readFile(join(dir, 'repodata/repomd.xml'), 'utf8'), 'updateinfo');
    const ours = await buildRepodata([], { revision: '1', timestamp: 1, additional: [{ type: 'updateinfo', xml }] });
    const mine = record(ours.repomd.bytes.toString(), 'updateinfo');

    expect(mine.openChecksum).toBe(theirs.openChecksum);
    expect(mine.openSize).toBe(theirs.openSize);
    expect(mine.location).toMatch(/^repodata\/[0-9a-f]{64}-updateinfo\.xml\.gz$/);
    expect(theirs.location).toMatch(/^repodata\/[0-9a-f]{64}-updateinfo\.xml\.gz$/);
    expect(gunzipSync(await readFile(join(dir, theirs.location))).toString()).toBe(xml);
    expect(gunzipSync(ours.files.find((file) => file.path === mine.location)!.bytes).toString()).toBe(xml);
    // modifyrepo_c, like us, keeps only the compressed copy in repodata/
    expect((await readdir(join(dir, 'repodata'))).filter((name) => name.includes('updateinfo'))).toEqual([theirs.location.slice('repodata/'.length)]);
  });
});
