import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from '@packyard/artifact/e2e/pipeline-fixture';
import { apiSession, registerUser, type ApiSession } from '@packyard/testing/api-session';
import { runCommand } from '@packyard/testing/clients/run-command';
import { toolsUnavailable } from '@packyard/testing/servers/daemon';
import { buildRpmBatch, dnf, dnfRoot, startPackyard, waitFor, zypper, zypperRoot, type RpmRepository, type RpmRoot, type RunningPackyard } from '@packyard/testing';

// Advisories as a customer uses them: machines run v1 of two packages, v2 of both is
// uploaded, a security advisory names one and a bugfix advisory the other; the real dnf
// lists both and `dnf upgrade --security` takes the security fix alone.

const noClients = toolsUnavailable(['dnf', 'rpm', 'rpmbuild'], ['dnf', 'rpm']);
const noZypper = toolsUnavailable(['zypper'], ['zypper']);
const skipped = (reason: string | undefined) => (reason ? ` (skipped: ${reason})` : '');

interface Snippets { repositoryUrl: string; publicKeyUrl: string }
interface AdvisoryJson { id: string; type: string; severity: string; title: string; references: { type: string; id: string; href: string }[] }

describe.skipIf(noClients !== undefined)(`RPM advisories through updateinfo.xml${skipped(noClients)}`, () => {
  let packyard: RunningPackyard;
  let session: ApiSession;
  let work: string;
  let dataDir: string;
  const roots: RpmRoot[] = [];
  /** what the dnf test published, for the zypper one */
  let published: { client: RpmRepository; securityId: string; token: string; repositoryPath: string } | undefined;

  beforeAll(async () => {
    packyard = await startPackyard();
    // kept for the restart, and removed here at the end since the restarted program does not own it
    dataDir = packyard.dataDir;
    session = await registerUser(packyard);
    work = await mkdtemp(join(tmpdir(), 'packyard-advisories-'));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(roots.map((root) => root.cleanup()));
    await packyard?.dispose();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (work) await rm(work, { recursive: true, force: true });
  });

  const call = async <T>(method: string, path: string, body?: unknown, status = [200, 201, 204]): Promise<T> => {
    const answer = await session.call<T>(method, path, body);
    if (!status.includes(answer.status)) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  /** the updateinfo.xml the edge serves for the distribution at `baseUrl` ('' when repomd.xml lists none) */
  const servedUpdateinfo = async (baseUrl: string, token: string) => {
    const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const repomd = await (await fetch(`${baseUrl}/repodata/repomd.xml`, { headers: auth })).text();
    const href = /<data type="updateinfo">[\s\S]*?<location href="([^"]+)"/.exec(repomd)?.[1];
    return href ? gunzipSync(Buffer.from(await (await fetch(`${baseUrl}/${href}`, { headers: auth })).arrayBuffer())).toString() : '';
  };
  const installed = async (root: RpmRoot, name: string) => (await runCommand('rpm', ['--root', root.path, '-q', '--qf', '%{VERSION}', name])).stdout;

  it('dnf lists the advisories, upgrade --security takes only the security fix, and a deleted advisory leaves updateinfo.xml', async () => {
    const workspace = await call<{ id: string }>('POST', '/workspaces', { name: 'Errata', slug: 'errata', description: '' });
    const repos = `/workspaces/${workspace.id}/repos`;
    const repository = await call<{ id: string }>('POST', repos, { name: 'errata', kind: 'RPM' });
    const apt = await call<{ id: string }>('POST', repos, { name: 'errata-apt', kind: 'DEB' });
    const token = (await call<{ token: string }>('POST', `/repos/${repository.id}/tokens`, { name: 'machines' })).token;
    const snippets = await call<Snippets>('GET', `/repos/${repository.id}/snippets`);
    const client: RpmRepository = { id: 'errata', baseUrl: `${snippets.repositoryUrl}/el/9`, publicKeyUrl: snippets.publicKeyUrl, token };
    const advisories = `${repos}/${repository.id}/advisories`;

    // v1 of both packages on a machine
    await waitFor('the first key', async () => ((await session.call('GET', `/repos/${repository.id}/keys`)).status === 200 ? true : undefined), { timeoutMs: 60_000 });
    const uploadVersion = async (version: string) => {
      const files = await buildRpmBatch([{ name: 'errata-secure', version, release: '1', arch: 'noarch' }, { name: 'errata-fixed', version, release: '1', arch: 'noarch' }], join(work, version));
      for (const file of files) expect((await upload(packyard, session, `${repos}/${repository.id}`, { name: 'p.rpm', bytes: await readFile(file) }, 'el/9')).status).toBe(201);
    };
    await uploadVersion('1.0');
    const root = await dnfRoot(client);
    roots.push(root);
    expect((await dnf(root, ['install', 'errata-secure', 'errata-fixed'])).code).toBe(0);
    await uploadVersion('2.0');

    // the advisories, through the API
    const pkg = (name: string) => ({ name, version: '2.0', release: '1', arch: 'noarch', distribution: 'el/9' });
    const security = await call<AdvisoryJson>('POST', advisories, {
      type: 'security',
      severity: 'important',
      title: 'errata-secure: remote code execution',
      description: 'A crafted greeting could run code.',
      references: [{ type: 'cve', id: 'CVE-2026-12345' }],
      packages: [pkg('errata-secure')],
    });
    const year = new Date().getUTCFullYear();
    expect(security).toMatchObject({ id: `PKY-${year}-0001`, type: 'security', severity: 'Important' });
    expect(security.references).toEqual([{ type: 'cve', id: 'CVE-2026-12345', href: 'https://www.cve.org/CVERecord?id=CVE-2026-12345', title: 'CVE-2026-12345' }]);
    const bugfix = await call<AdvisoryJson>('POST', advisories, { id: 'ERRATA-BUG-1', type: 'bugfix', title: 'errata-fixed: wrong greeting', packages: [pkg('errata-fixed')] });
    expect(bugfix.id).toBe('ERRATA-BUG-1');
    expect((await call<AdvisoryJson[]>('GET', advisories)).map((advisory) => advisory.id).sort()).toEqual(['ERRATA-BUG-1', security.id]);
    expect((await call<AdvisoryJson>('GET', `${advisories}/${security.id}`)).title).toBe('errata-secure: remote code execution');
    // what a user gets wrong
    expect((await session.call('POST', advisories, { id: security.id, type: 'security', title: 'again', packages: [pkg('errata-secure')] })).status).toBe(409);
    const refused = await session.call('POST', advisories, { type: 'hotfix', title: 'x', packages: [pkg('errata-secure')] });
    expect(refused).toMatchObject({ status: 400, body: { message: 'Advisory type must be one of security, bugfix, enhancement' } });
    expect((await session.call('POST', advisories, { type: 'bugfix', title: 'x', packages: [{ ...pkg('errata-fixed'), distribution: 'ubuntu/noble' }] })).status).toBe(400);
    expect((await session.call('POST', `${repos}/${apt.id}/advisories`, { type: 'bugfix', title: 'x', packages: [pkg('errata-fixed')] })).body.message).toMatch(/RPM repositories only/);
    expect((await session.call('GET', `${advisories}/PKY-1999-0001`)).status).toBe(404);
    const openapi = (await (await fetch(`${packyard.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(openapi.paths['/api/v1/workspaces/{workspaceId}/repos/{repoId}/advisories']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(openapi.paths['/api/v1/workspaces/{workspaceId}/repos/{repoId}/advisories/{advisoryId}']).sort()).toEqual(['delete', 'get']);

    // published: repomd.xml lists updateinfo, gzipped like modifyrepo_c writes it, and signed with the rest
    const updateinfo = await waitFor('updateinfo.xml with both advisories', async () => {
      const xml = await servedUpdateinfo(client.baseUrl, token);
      return xml.includes('ERRATA-BUG-1') && xml.includes(security.id) ? xml : undefined;
    }, { timeoutMs: 30_000 });
    expect(updateinfo).toContain('<reference href="https://www.cve.org/CVERecord?id=CVE-2026-12345" id="CVE-2026-12345" type="cve" title="CVE-2026-12345"/>');

    // the real dnf: both listed, the security one as Important/Sec.
    const list = await dnf(root, ['--refresh', 'updateinfo', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${security.id}\\s+Important/Sec\\.\\s+errata-secure-2\\.0-1\\.noarch`));
    expect(list.stdout).toMatch(/ERRATA-BUG-1\s+bugfix\s+errata-fixed-2\.0-1\.noarch/);
    const info = await dnf(root, ['updateinfo', 'info', security.id]);
    expect(info.stdout).toContain('CVE-2026-12345');
    expect(info.stdout).toContain('errata-secure: remote code execution');

    const upgrade = await dnf(root, ['upgrade', '--security']);
    expect(upgrade.code).toBe(0);
    expect(await installed(root, 'errata-secure')).toBe('2.0');
    expect(await installed(root, 'errata-fixed')).toBe('1.0');
    const remaining = await dnf(root, ['updateinfo', 'list']);
    expect(remaining.stdout).not.toContain(security.id);
    expect(remaining.stdout).toContain('ERRATA-BUG-1');

    // deleted: the next publication leaves it out
    await call('DELETE', `${advisories}/ERRATA-BUG-1`);
    expect((await session.call('GET', `${advisories}/ERRATA-BUG-1`)).status).toBe(404);
    await waitFor('updateinfo.xml without the bugfix advisory', async () => {
      const xml = await servedUpdateinfo(client.baseUrl, token);
      return xml.includes(security.id) && !xml.includes('ERRATA-BUG-1') ? true : undefined;
    }, { timeoutMs: 30_000 });
    const after = await dnf(root, ['--refresh', 'updateinfo', 'list', '--all']);
    expect(after.code).toBe(0);
    expect(after.stdout).not.toContain('ERRATA-BUG-1');

    published = { client, securityId: security.id, token, repositoryPath: `${repos}/${repository.id}` };
  }, 400_000);

  it.skipIf(noZypper !== undefined)(`zypper reads the same updateinfo.xml as patches${skipped(noZypper)}`, async () => {
    expect(published).toBeDefined();
    const suse = await zypperRoot(published!.client);
    roots.push(suse);
    expect((await zypper(suse, ['--gpg-auto-import-keys', 'install', 'errata-secure=1.0'])).code).toBe(0);
    const patches = await zypper(suse, ['list-patches']);
    expect(patches.code).toBe(0);
    expect(patches.stdout).toMatch(new RegExp(`${published!.securityId}\\s*\\|\\s*security\\s*\\|\\s*important`));
  }, 120_000);

  it('publishes the same advisories after a restart (the publisher reads them from its read model)', async () => {
    expect(published).toBeDefined();
    const { client, token, securityId, repositoryPath } = published!;
    const repomd = async (baseUrl: string) => {
      const answer = await fetch(`${baseUrl}/repodata/repomd.xml`, { headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` } });
      return answer.status === 200 ? answer.text() : undefined;
    };
    const before = await repomd(client.baseUrl);
    await packyard.stop();
    packyard = await startPackyard({ dataDir });
    // the same repository at the restarted program's port; nothing changed, so the start publishes nothing
    const baseUrl = client.baseUrl.replace(/^https?:\/\/[^/]+/, packyard.url);
    expect(await waitFor('the repository served after the restart', () => repomd(baseUrl), { timeoutMs: 60_000 })).toBe(before);
    // a package uploaded after the restart: its distribution's next generation carries the advisories again
    const [file] = await buildRpmBatch([{ name: 'errata-fixed', version: '3.0', release: '1', arch: 'noarch' }], join(work, '3.0'));
    expect((await upload(packyard, apiSession(packyard, session.bearer), repositoryPath, { name: 'p.rpm', bytes: await readFile(file) }, 'el/9')).status).toBe(201);
    await waitFor('a publication made after the restart', async () => ((await repomd(baseUrl)) !== before ? true : undefined), { timeoutMs: 60_000 });
    const xml = await servedUpdateinfo(baseUrl, token);
    expect(xml).toContain(`<id>${securityId}</id>`);
    expect(xml).not.toContain('ERRATA-BUG-1');
  }, 180_000);
});
