import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from '@packyard/artifact/e2e/pipeline-fixture';
import { parseRpm } from '@packyard/formats';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { runCommand } from '@packyard/testing/clients/run-command';
import { toolsUnavailable } from '@packyard/testing/servers/daemon';
import { buildRpm, buildSourceRpm, dnf, dnfDownload, dnfDownloadUnavailable, dnfRoot, installWithRpmScript, startPackyard, waitFor, type RpmRoot, type RunningPackyard } from '@packyard/testing';

// A .src.rpm as a packager ships it: uploaded beside its binary package, signed like it, and
// published in the distribution's source repository (SRPMS/), which the install script's
// [<name>-source] section names; `dnf download --source` fetches it from there.

const missing = toolsUnavailable(['dnf', 'rpm', 'rpmbuild', 'curl'], ['dnf', 'rpm', 'curl']);
const noDownload = missing ?? dnfDownloadUnavailable();
const skipped = noDownload ? ` (skipped: ${noDownload})` : '';

describe.skipIf(noDownload !== undefined)(`source RPMs${skipped}`, () => {
  let packyard: RunningPackyard;
  let session: ApiSession;
  let work: string;
  let root: RpmRoot | undefined;

  beforeAll(async () => {
    packyard = await startPackyard();
    session = await registerUser(packyard);
    work = await mkdtemp(join(tmpdir(), 'packyard-srpm-'));
  }, 60_000);
  afterAll(async () => {
    await root?.cleanup();
    await packyard?.dispose();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await session.call<T>(method, path, body);
    if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  /** the package's main header and payload: what signing leaves byte for byte */
  const signedPart = async (bytes: Buffer) => bytes.subarray((await parseRpm(Readable.from([bytes]))).headerRange.start);

  it('stores a signed .src.rpm in SRPMS/ and dnf download --source fetches exactly it through the [<name>-source] section', async () => {
    const workspace = await call<{ id: string }>('POST', '/workspaces', { name: 'Sources', slug: 'sources', description: '' });
    const repos = `/workspaces/${workspace.id}/repos`;
    const repository = await call<{ id: string }>('POST', repos, { name: 'srcrepo', kind: 'RPM' });
    const token = (await call<{ token: string }>('POST', `/repos/${repository.id}/tokens`, { name: 'machines' })).token;
    await waitFor('the first key', async () => ((await session.call('GET', `/repos/${repository.id}/keys`)).status === 200 ? true : undefined), { timeoutMs: 60_000 });

    const spec = { name: 'srcdemo', version: '1.0', release: '1', arch: 'noarch' } as const;
    const binary = await readFile(await buildRpm(spec, work));
    const source = await readFile(await buildSourceRpm(spec, work));
    expect((await upload(packyard, session, `${repos}/${repository.id}`, { name: 'srcdemo.rpm', bytes: binary }, 'el/9')).status).toBe(201);
    const uploaded = await upload(packyard, session, `${repos}/${repository.id}`, { name: 'srcdemo-1.0-1.src.rpm', bytes: source }, 'el/9');
    expect(uploaded).toMatchObject({ status: 201, body: { name: 'srcdemo', version: '1.0-1', architecture: 'src', filename: 'srcdemo-1.0-1.src.rpm' } });
    // the same source package again is a duplicate, as for binaries
    expect((await upload(packyard, session, `${repos}/${repository.id}`, { name: 'again.src.rpm', bytes: source }, 'el/9', { wait: false })).status).toBe(409);

    // a machine set up by the install script: the binary repository on, the source one off
    root = await dnfRoot();
    const install = await installWithRpmScript(root, `${packyard.url}/api/install-rpm.sh?repo=${repository.id}`, token);
    expect(install.stderr).not.toContain('failed while');
    expect(install.code).toBe(0);
    const repoFile = await readFile(join(root.path, 'etc/yum.repos.d/srcrepo.repo'), 'utf8');
    expect(repoFile).toMatch(/^\[srcrepo-source\]\nname=srcrepo \(source packages\)\nbaseurl=\S+\/rpm\/sources\/srcrepo\/el\/9\/SRPMS\nenabled=0\nrepo_gpgcheck=1\ngpgcheck=1\n/m);

    // installs take the binary package; the binary repodata has no source package in it
    expect((await dnf(root, ['install', 'srcdemo'])).code).toBe(0);
    expect((await runCommand('rpm', ['--root', root.path, '-q', '--qf', '%{ARCH}', 'srcdemo'])).stdout).toBe('noarch');

    const downloads = join(work, 'downloads');
    const download = await dnfDownload(root, ['--source', '--destdir', downloads, 'srcdemo']);
    expect(download.stderr).not.toMatch(/error/i);
    expect(download.code).toBe(0);
    expect(await readdir(downloads)).toEqual(['srcdemo-1.0-1.src.rpm']);
    const fetched = await readFile(join(downloads, 'srcdemo-1.0-1.src.rpm'));

    // what was uploaded, signed: header and payload byte for byte, the digest the signed SRPMS/repodata names
    expect((await signedPart(fetched)).equals(await signedPart(source))).toBe(true);
    const snippets = await call<{ repositoryUrl: string; publicKeyUrl: string }>('GET', `/repos/${repository.id}/snippets`);
    const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const sourceRoot = `${snippets.repositoryUrl}/el/9/SRPMS`;
    const repomd = await (await fetch(`${sourceRoot}/repodata/repomd.xml`, { headers: auth })).text();
    const primaryHref = /<data type="primary">[\s\S]*?<location href="([^"]+)"/.exec(repomd)![1];
    const primary = gunzipSync(Buffer.from(await (await fetch(`${sourceRoot}/${primaryHref}`, { headers: auth })).arrayBuffer())).toString();
    expect(primary).toContain('<arch>src</arch>');
    expect(primary).toContain(`<checksum type="sha256" pkgid="YES">${createHash('sha256').update(fetched).digest('hex')}</checksum>`);
    const binaryRepomd = await (await fetch(`${snippets.repositoryUrl}/el/9/repodata/repomd.xml`, { headers: auth })).text();
    const binaryPrimaryHref = /<data type="primary">[\s\S]*?<location href="([^"]+)"/.exec(binaryRepomd)![1];
    const binaryPrimary = gunzipSync(Buffer.from(await (await fetch(`${snippets.repositoryUrl}/el/9/${binaryPrimaryHref}`, { headers: auth })).arrayBuffer())).toString();
    expect(binaryPrimary).not.toContain('<arch>src</arch>');
    // where the console's Packages tab links it
    const served = await fetch(`${sourceRoot}/Packages/el/9/s/srcdemo-1.0-1.src.rpm`, { headers: auth });
    expect(Buffer.from(await served.arrayBuffer()).equals(fetched)).toBe(true);

    // rpm -K with the repository's key: the signature and every digest check out
    const keyring = await mkdtemp(join(work, 'rpmdb-'));
    await writeFile(join(work, 'key.asc'), await (await fetch(snippets.publicKeyUrl)).text());
    expect((await runCommand('rpm', ['--root', keyring, '--import', join(work, 'key.asc')])).code).toBe(0);
    const checked = await runCommand('rpm', ['--root', keyring, '-K', join(downloads, 'srcdemo-1.0-1.src.rpm')]);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/digests signatures OK/);
  }, 300_000);
});
