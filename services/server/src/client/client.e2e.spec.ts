import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '@packyard/testing/clients/run-command';
import { aptGet, buildDeb, buildRpm, freshDebianRoot, PACKYARD_BIN, REPO_ROOT, runInRoot, startPackyard, type DebianRoot, type RunningPackyard } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { buildSourcePackage } from '@packyard/testing/packages/source-package.builder';
import { runClient } from './client';
import { EXIT } from './exit-codes';

// The `packyard` client commands as a CI job runs them: a child process of the real program
// against the single-node server, with PACKYARD_URL / PACKYARD_TOKEN or a stored login, and
// the real apt of a bookworm root installing what `push --wait` returned for.

describe('packyard client commands', () => {
  let packyard: RunningPackyard;
  let session: ApiSession;
  let workspace: { id: string; slug: string };
  let accountToken: string;
  let work: string;
  const roots: DebianRoot[] = [];

  const cli = (args: string[], env: Record<string, string> = {}, input?: string) =>
    runCommand(process.execPath, [PACKYARD_BIN, ...args], {
      cwd: REPO_ROOT,
      input,
      env: { ...process.env, PACKYARD_URL: packyard.url, PACKYARD_TOKEN: accountToken, XDG_CONFIG_HOME: join(work, 'no-login'), ...env },
    });
  const createRepository = async (name: string, kind: 'DEB' | 'RPM' = 'DEB') =>
    (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name, kind, codename: kind === 'DEB' ? 'bookworm' : '', component: kind === 'DEB' ? 'main' : '' })).body as { id: string; name: string };

  beforeAll(async () => {
    packyard = await startPackyard();
    session = await registerUser(packyard);
    workspace = (await session.call('POST', '/workspaces', { name: 'Acme CI', slug: 'acme-ci', description: '' })).body;
    accountToken = (await session.call('POST', '/tokens', { name: 'ci', scopes: ['read', 'publish', 'admin'] })).body.token;
    work = await mkdtemp(join(tmpdir(), 'packyard-cli-e2e-'));
  }, 60_000);
  afterEach(async () => {
    await Promise.all(roots.splice(0).map((root) => root.cleanup()));
  });
  afterAll(async () => {
    await packyard?.dispose();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('push --wait (run through npx) returns only when apt can install the package right away', async () => {
    const repository = await createRepository('tools');
    // the machine is set up against the repository before the CI job pushes, as in real life
    const seed = await buildDeb({ name: 'packyard-seed', version: '1.0.0', arch: 'all' }, work);
    expect((await cli(['push', 'acme-ci/tools', 'debian/bookworm', seed, '--wait'])).code).toBe(0);
    const { token: readToken } = (await session.call('POST', `/repos/${repository.id}/tokens`, { name: 'machine' })).body;
    const { setupCommands } = (await session.call('GET', `/repos/${repository.id}/snippets?codename=bookworm&component=main`)).body;
    const root = await freshDebianRoot();
    roots.push(root);
    expect((await runInRoot(root, setupCommands.oneLiner.replace('YOUR_TOKEN', readToken))).code).toBe(0);

    const file = await buildDeb({ name: 'packyard-ci-hello', version: '2.0.0', arch: 'all' }, work);
    const push = await runCommand('npx', ['--no-install', 'packyard', 'push', 'acme-ci/tools', 'debian/bookworm', file, '--wait'], {
      cwd: REPO_ROOT,
      env: { ...process.env, PACKYARD_URL: packyard.url, PACKYARD_TOKEN: accountToken, XDG_CONFIG_HOME: join(work, 'no-login') },
    });
    expect(push.stderr).toContain('packyard-ci-hello_2.0.0_all.deb: installable (packyard-ci-hello 2.0.0, debian/bookworm)');
    expect(push.code).toBe(0);

    expect((await aptGet(root, ['update'])).code).toBe(0);
    const install = await aptGet(root, ['install', '-y', 'packyard-ci-hello']);
    expect(install.code).toBe(0);
    expect((await runInRoot(root, "dpkg-query -W -f '${Version}' packyard-ci-hello")).stdout).toBe('2.0.0');
  }, 300_000);

  it('promote --wait makes a package installable from the target repository right away, and it leaves the source', async () => {
    await createRepository('staging');
    const production = await createRepository('production');
    const candidate = await buildDeb({ name: 'packyard-release', version: '3.1.0', arch: 'all' }, work);
    expect((await cli(['push', 'acme-ci/staging', 'debian/bookworm', candidate])).code).toBe(0);
    expect((await cli(['push', 'acme-ci/production', 'debian/bookworm', await buildDeb({ name: 'packyard-seed', version: '1.0.0', arch: 'all' }, work), '--wait'])).code).toBe(0);
    const { token: readToken } = (await session.call('POST', `/repos/${production.id}/tokens`, { name: 'machine' })).body;
    const { setupCommands } = (await session.call('GET', `/repos/${production.id}/snippets?codename=bookworm&component=main`)).body;
    const root = await freshDebianRoot();
    roots.push(root);
    expect((await runInRoot(root, setupCommands.oneLiner.replace('YOUR_TOKEN', readToken))).code).toBe(0);
    expect((await runInRoot(root, 'apt-cache policy packyard-release')).stdout).not.toContain('3.1.0');

    const promote = await cli(['promote', 'acme-ci/staging', 'acme-ci/production', 'packyard-release', '3.1.0', '--wait']);
    expect(promote.stdout).toBe('promoted packyard-release 3.1.0 all (debian/bookworm) to acme-ci/production; installable\n');
    expect(promote.code).toBe(0);
    expect((await aptGet(root, ['update'])).code).toBe(0);
    expect((await aptGet(root, ['install', '-y', 'packyard-release'])).code).toBe(0);
    expect((await runInRoot(root, "dpkg-query -W -f '${Version}' packyard-release")).stdout).toBe('3.1.0');
    expect(JSON.parse((await cli(['ls', 'acme-ci/staging', '--json'])).stdout)).toEqual([]);

    // --copy keeps the source; the same version twice in the target is a conflict (exit 4)
    expect((await cli(['promote', 'acme-ci/production', 'acme-ci/staging', 'packyard-release', '3.1.0', '--copy'])).code).toBe(0);
    expect(JSON.parse((await cli(['ls', 'acme-ci/production', '--json'])).stdout).map((p: { name: string }) => p.name)).toContain('packyard-release');
    expect((await cli(['promote', 'acme-ci/production', 'acme-ci/staging', 'packyard-release', '3.1.0', '--copy'])).code).toBe(EXIT.conflict);
    expect((await cli(['promote', 'acme-ci/production', 'acme-ci/staging', 'packyard-missing', '1.0'])).code).toBe(EXIT.notFound);
  }, 300_000);

  it('push --wait checks an RPM repository through repomd.xml and primary; --json answers the package', async () => {
    await createRepository('rpms', 'RPM');
    const file = await buildRpm({ name: 'packyard-ci-rpm', version: '1.0', release: '1', arch: 'x86_64' }, work);
    const push = await cli(['push', 'acme-ci/rpms', 'el/9', file, '--wait', '--json']);
    expect(push.code).toBe(0);
    const [result] = JSON.parse(push.stdout);
    expect(result).toMatchObject({ installable: true, package: { name: 'packyard-ci-rpm', version: '1.0-1', distribution: 'el/9' } });
    const primary = await fetch(`${packyard.url}/rpm/acme-ci/rpms/el/9/repodata/repomd.xml`, { headers: { authorization: `Basic ${Buffer.from(`${accountToken}:`).toString('base64')}` } });
    expect(primary.status).toBe(200);
  }, 120_000);

  it('push sends a source package as one upload, the .dsc with the files it lists, and --wait finds it in Sources', async () => {
    await createRepository('sources');
    const built = await buildSourcePackage({ name: 'packyard-ci-src', upstreamVersion: '1.0' }, join(work, 'source'));
    // every file named, as `push … dist/*` would: the listed ones go with their .dsc, not alone
    const push = await cli(['push', 'acme-ci/sources', 'debian/bookworm', ...built.files, '--wait', '--json']);
    expect(push.code).toBe(0);
    const results = JSON.parse(push.stdout);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ file: built.dsc, installable: true, package: { name: 'packyard-ci-src', architecture: 'source', filename: 'packyard-ci-src_1.0-1.dsc' } });
    const sources = await fetch(`${packyard.url}/deb/acme-ci/sources/debian/dists/bookworm/main/source/Sources`, { headers: { authorization: `Basic ${Buffer.from(`${accountToken}:`).toString('base64')}` } });
    expect(await sources.text()).toMatch(/^ [0-9a-f]{32} \d+ packyard-ci-src_1\.0\.orig\.tar\.gz$/m);
  }, 120_000);

  it('answers exit codes CI can branch on, with --json errors on stdout', async () => {
    await createRepository('codes');
    const file = await buildDeb({ name: 'packyard-codes', version: '1.0.0', arch: 'amd64' }, work);
    expect((await cli(['push', 'acme-ci/codes', 'debian/bookworm', file])).code).toBe(EXIT.ok);

    const duplicate = await cli(['push', 'acme-ci/codes', 'debian/bookworm', file, '--json']);
    expect(duplicate.code).toBe(EXIT.conflict);
    expect(JSON.parse(duplicate.stdout)).toEqual([{ file, error: expect.stringMatching(/already/i), exitCode: EXIT.conflict }]);

    const badToken = await cli(['ls', 'acme-ci', '--json'], { PACKYARD_TOKEN: 'pk_not_a_token' });
    expect(badToken.code).toBe(EXIT.auth);
    expect(JSON.parse(badToken.stdout)).toMatchObject({ exitCode: EXIT.auth, status: 401 });

    expect((await cli(['push', 'acme-ci/nothing-here', 'debian/bookworm', file])).code).toBe(EXIT.notFound);
    expect((await cli(['push', 'acme-ci/codes', 'debian/bookworm'])).code).toBe(EXIT.usage);
    const unknownDistribution = await cli(['push', 'acme-ci/codes', 'debian/hamm', file]);
    expect(unknownDistribution.code).toBe(EXIT.usage);
    expect(unknownDistribution.stderr).toContain('Unknown distribution "debian/hamm"');
    expect((await cli(['ls', '--bogus'])).code).toBe(EXIT.usage);
    const unreachable = await cli(['ls'], { PACKYARD_URL: 'http://127.0.0.1:9' });
    expect(unreachable.code).toBe(EXIT.server);

    const noToken = await cli(['ls'], { PACKYARD_TOKEN: '' });
    expect(noToken.code).toBe(EXIT.auth);
    expect(noToken.stderr).toContain('not signed in');
  }, 120_000);

  it('ls lists workspaces, repositories and packages; rm deletes a version and then finds nothing', async () => {
    await createRepository('listing');
    for (const version of ['1.0.0', '1.1.0']) {
      expect((await cli(['push', 'acme-ci/listing', 'debian/bookworm', await buildDeb({ name: 'packyard-listed', version, arch: 'all' }, work)])).code).toBe(0);
    }
    expect((await cli(['ls'])).stdout).toMatch(/^acme-ci\s+Acme CI\s+\d+$/m);
    expect((await cli(['ls', 'acme-ci'])).stdout).toMatch(/^acme-ci\/listing\s+DEB\s+2$/m);
    const listed = JSON.parse((await cli(['ls', 'acme-ci/listing', '--json'])).stdout) as { name: string; version: string }[];
    expect(listed.map((p) => p.version).sort()).toEqual(['1.0.0', '1.1.0']);

    const removed = await cli(['rm', 'acme-ci/listing', 'packyard-listed', '1.0.0']);
    expect(removed.stdout).toBe('deleted packyard-listed 1.0.0 all (debian/bookworm)\n');
    expect(removed.code).toBe(0);
    expect(JSON.parse((await cli(['ls', 'acme-ci/listing', '--json'])).stdout).map((p: { version: string }) => p.version)).toEqual(['1.1.0']);
    const again = await cli(['rm', 'acme-ci/listing', 'packyard-listed', '1.0.0']);
    expect(again.code).toBe(EXIT.notFound);
    expect(again.stderr).toContain('no packyard-listed 1.0.0 in acme-ci/listing');
  }, 120_000);

  it('login stores the token in the config dir with mode 0600, and later commands use it', async () => {
    const config = join(work, 'config-home');
    const login = await cli(['login', '--url', packyard.url, '--token-stdin'], { PACKYARD_TOKEN: '', PACKYARD_URL: '', XDG_CONFIG_HOME: config }, `${accountToken}\n`);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    const file = join(config, 'packyard', 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ url: packyard.url, token: accountToken });
    const ls = await cli(['ls'], { PACKYARD_TOKEN: '', PACKYARD_URL: '', XDG_CONFIG_HOME: config });
    expect(ls.stdout).toContain('acme-ci');

    const wrong = await cli(['login', '--url', packyard.url, '--token-stdin'], { PACKYARD_TOKEN: '', XDG_CONFIG_HOME: join(work, 'other') }, 'pk_wrong\n');
    expect(wrong.code).toBe(EXIT.auth);

    // with a password: a new account token named after the machine
    const withPassword = await cli(['login', '--url', packyard.url, '--email', session.email], { PACKYARD_TOKEN: '', XDG_CONFIG_HOME: join(work, 'by-password') }, 'correct horse battery\n');
    expect(withPassword.code).toBe(0);
    const tokens = (await session.call('GET', '/tokens')).body as { name: string }[];
    expect(tokens.map((t) => t.name)).toContainEqual(expect.stringMatching(/^packyard CLI on /));
  }, 120_000);

  it('tokens creates, lists and revokes account and repository tokens', async () => {
    await createRepository('tokened');
    const created = JSON.parse((await cli(['tokens', 'create', '--name', 'deploy', '--scopes', 'read', '--json'])).stdout);
    expect(created).toMatchObject({ name: 'deploy', scopes: ['read'], token: expect.any(String) });
    expect((await cli(['ls'], { PACKYARD_TOKEN: created.token })).code).toBe(0);
    expect((await cli(['push', 'acme-ci/tokened', 'debian/bookworm', await buildDeb({ name: 'packyard-scoped', version: '1.0.0', arch: 'all' }, work)], { PACKYARD_TOKEN: created.token })).code).toBe(EXIT.auth);
    expect((await cli(['tokens'])).stdout).toMatch(new RegExp(`^${created.id}\\s+deploy\\s+read\\s+all\\s+\\S+$`, 'm'));
    expect((await cli(['tokens', 'revoke', created.id])).code).toBe(0);
    expect((await cli(['ls'], { PACKYARD_TOKEN: created.token })).code).toBe(EXIT.auth);

    const repoToken = JSON.parse((await cli(['tokens', 'create', 'acme-ci/tokened', '--name', 'apt', '--json'])).stdout);
    expect(repoToken).toMatchObject({ name: 'apt', isActive: true, token: expect.any(String) });
    expect(JSON.parse((await cli(['tokens', 'ls', 'acme-ci/tokened', '--json'])).stdout)).toEqual([expect.objectContaining({ id: repoToken.id })]);
    expect((await cli(['tokens', 'revoke', 'acme-ci/tokened', repoToken.id])).code).toBe(0);
    expect(JSON.parse((await cli(['tokens', 'ls', 'acme-ci/tokened', '--json'])).stdout)).toEqual([]);
  }, 120_000);

  it('advisories posts, lists, shows and withdraws an advisory of an RPM repository', async () => {
    await createRepository('errata', 'RPM');
    const posted = await cli([
      'advisories', 'create', 'acme-ci/errata', '--type', 'security', '--severity', 'Critical', '--title', 'hello: overflow',
      '--package', 'hello-1:2.0-1.el9.x86_64', '--package', 'hello-libs-2.0-1.el9.x86_64', '--distribution', 'el/9', '--cve', 'CVE-2026-4242',
    ]);
    expect(posted.stderr).toBe('');
    const id = posted.stdout.trim();
    expect(id).toMatch(/^PKY-\d{4}-0001$/);
    expect((await cli(['advisories', 'acme-ci/errata'])).stdout).toMatch(new RegExp(`^${id}\\s+security\\s+Critical\\s+\\d{4}-\\d\\d-\\d\\d\\s+hello: overflow$`, 'm'));
    const shown = JSON.parse((await cli(['advisories', 'show', 'acme-ci/errata', id, '--json'])).stdout);
    expect(shown.packages).toEqual([
      { name: 'hello', epoch: 1, version: '2.0', release: '1.el9', arch: 'x86_64', distribution: 'el/9' },
      { name: 'hello-libs', epoch: 0, version: '2.0', release: '1.el9', arch: 'x86_64', distribution: 'el/9' },
    ]);
    expect(shown.references).toEqual([expect.objectContaining({ type: 'cve', id: 'CVE-2026-4242' })]);
    const refused = await cli(['advisories', 'create', 'acme-ci/errata', '--type', 'hotfix', '--title', 'x', '--package', 'hello-2.0-1.x86_64', '--distribution', 'el/9']);
    expect(refused).toMatchObject({ code: EXIT.usage, stderr: expect.stringContaining('Advisory type must be one of security, bugfix, enhancement') });
    expect((await cli(['advisories', 'rm', 'acme-ci/errata', id])).code).toBe(0);
    expect((await cli(['advisories', 'show', 'acme-ci/errata', id])).code).toBe(EXIT.notFound);
  }, 120_000);

  it('draws a progress bar per file on a terminal and plain lines elsewhere', async () => {
    await createRepository('progress');
    const file = await buildDeb({ name: 'packyard-progress', version: '1.0.0', arch: 'all' }, work);
    const terminal: string[] = [];
    const io = (isTTY: boolean, sink: string[]) => ({
      stdout: { write: () => undefined },
      stderr: { isTTY, write: (text: string) => void sink.push(text) },
      stdin: process.stdin,
      env: { PACKYARD_URL: packyard.url, PACKYARD_TOKEN: accountToken, HOME: work },
    });
    expect(await runClient(['push', 'acme-ci/progress', 'debian/bookworm', file], io(true, terminal))).toBe(0);
    expect(terminal.join('')).toContain(`\r\x1b[2Kpackyard-progress_1.0.0_all.deb [${'#'.repeat(24)}] 100% `);
    expect(terminal.at(-1)).toBe('\r\x1b[2Kpackyard-progress_1.0.0_all.deb: published\n');

    const log = await cli(['push', 'acme-ci/progress', 'debian/bookworm', await buildDeb({ name: 'packyard-progress', version: '1.0.1', arch: 'all' }, work)]);
    expect(log.stderr).toMatch(/^uploading packyard-progress_1\.0\.1_all\.deb \(\d+(\.\d)? (B|KiB)\)\npackyard-progress_1\.0\.1_all\.deb: published\n$/);
  }, 120_000);
});
