import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderInstallScript } from '@packyard/delivery/install-scripts/install-script';
import { startReferenceRepository, type ReferenceRepository } from './reference-repository';
import { runCommand } from './run-command';
import { toolsUnavailable } from '../servers/daemon';
import { dnf, dnfRoot, installWithRpmScript, zypper, zypperRoot, type RpmRepository, type RpmRoot } from './rpm-roots';

// Real dnf and zypper against a repository made by createrepo_c and signed by gpg: proves the
// harness and install-rpm.sh before Packyard's own delivery edge replaces the reference.

const token = 'pk_test_0123456789abcdef';
const packageName = 'packyard-hello';

/** What the root's rpm database says is installed, as `rpm -q` would answer. */
async function installedVersion(root: RpmRoot): Promise<string> {
  const query = await runCommand('rpm', ['--root', root.path, '-q', '--qf', '%{VERSION}-%{RELEASE}', packageName]);
  return query.stdout;
}

const noReference = toolsUnavailable(['createrepo_c', 'gpg', 'rpm', 'curl'], ['createrepo-c', 'gnupg', 'rpm', 'curl']);
const noDnf = toolsUnavailable(['dnf'], ['dnf']);
const noZypper = toolsUnavailable(['zypper'], ['zypper']);
const skipped = (reason: string | undefined) => (reason ? ` (skipped: ${reason})` : '');

describe.skipIf(noReference !== undefined)(`dnf and zypper against a signed RPM repository${skipped(noReference)}`, () => {
  let reference: ReferenceRepository;
  let repository: (distribution: string, overrides?: Partial<RpmRepository>) => RpmRepository;
  const roots: RpmRoot[] = [];
  const track = (root: RpmRoot) => {
    roots.push(root);
    return root;
  };

  beforeAll(async () => {
    reference = await startReferenceRepository({
      workspace: 'acme',
      repository: 'tools',
      token,
      packages: [{ name: packageName, version: '1.0.0' }],
      rpmDistributions: ['el/9', 'opensuse/leap-15.5'],
    });
    reference.servePublic('/api/install-rpm.sh', () =>
      renderInstallScript('rpm', { repositoryName: 'tools', repositoryUrl: reference.rpmRepositoryUrl, publicKeyUrl: reference.publicKeyUrl }),
    );
    repository = (distribution, overrides = {}) => ({
      id: 'tools',
      baseUrl: `${reference.rpmRepositoryUrl}/${distribution}`,
      publicKeyUrl: reference.publicKeyUrl,
      token,
      ...overrides,
    });
  });
  afterEach(async () => {
    await Promise.all(roots.splice(0).map((root) => root.cleanup()));
  });
  afterAll(() => reference?.close());

  /** Changes one byte of a served repomd.xml for the duration of `check`. */
  async function withTamperedRepomd(distribution: string, check: () => Promise<void>): Promise<void> {
    const repomd = join(reference.servedDir, 'rpm/acme/tools', distribution, 'repodata/repomd.xml');
    const original = await readFile(repomd);
    const tampered = Buffer.from(original);
    tampered[tampered.indexOf('<revision>') + '<revision>'.length] ^= 1;
    await writeFile(repomd, tampered);
    try {
      await check();
    } finally {
      await writeFile(repomd, original);
    }
  }

  it.skipIf(noDnf !== undefined)(`dnf installs a signed noarch package with gpgcheck=1 and repo_gpgcheck=1 after importing the key from gpgkey=${skipped(noDnf)}`, async () => {
    const root = track(await dnfRoot(repository('el/9')));
    const result = await dnf(root, ['install', packageName]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Importing GPG key');
    expect(await installedVersion(root)).toBe('1.0.0-1');
  });

  it.skipIf(noDnf !== undefined)(`dnf fails on a repomd.xml that does not match its signature, even where it would only refresh${skipped(noDnf)}`, async () => {
    const root = track(await dnfRoot(repository('el/9')));
    await withTamperedRepomd('el/9', async () => {
      // makecache exits 0 on a failed signature unless skip_if_unavailable=False.
      const result = await dnf(root, ['makecache']);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/signature|GPG/i);
    });
  });

  it.skipIf(noDnf !== undefined)(`dnf fails with 401 when the token is wrong${skipped(noDnf)}`, async () => {
    const root = track(await dnfRoot(repository('el/9', { token: 'pk_wrong_token' })));
    const result = await dnf(root, ['makecache']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('401');
  });

  it.skipIf(noZypper !== undefined)(`zypper refreshes the repository and verifies repomd.xml, refusing a tampered one${skipped(noZypper)}`, async () => {
    const root = track(await zypperRoot(repository('opensuse/leap-15.5')));
    const refreshed = await zypper(root, ['--gpg-auto-import-keys', 'refresh', 'tools']);
    expect(refreshed.code).toBe(0);
    expect(refreshed.stdout).toContain('Packyard reference repository');

    await withTamperedRepomd('opensuse/leap-15.5', async () => {
      const result = await zypper(root, ['--gpg-auto-import-keys', 'refresh', '--force', 'tools']);
      expect(result.code).not.toBe(0);
      expect(result.stdout + result.stderr).toMatch(/signature verification failed/i);
    });
  });

  it.skipIf(noDnf !== undefined)(`install-rpm.sh sets up an EL9 root from the one-liner so dnf installs, with the token readable by root only${skipped(noDnf)}`, async () => {
    const root = track(await dnfRoot());
    const install = await installWithRpmScript(root, `${reference.origin}/api/install-rpm.sh?repo=repo-1`, token);
    expect(install.stderr).not.toContain('failed while');
    expect(install.code).toBe(0);

    const repoFile = join(root.path, 'etc/yum.repos.d/tools.repo');
    expect((await stat(repoFile)).mode & 0o777).toBe(0o600);
    const repoText = await readFile(repoFile, 'utf8');
    expect(repoText).toContain(`baseurl=${reference.rpmRepositoryUrl}/el/9\n`);
    expect(repoText).toMatch(/^repo_gpgcheck=1$/m);
    expect(repoText).toMatch(/^gpgcheck=1$/m);
    expect(repoText).toMatch(/^skip_if_unavailable=False$/m);

    expect((await dnf(root, ['install', packageName])).code).toBe(0);
    expect(await installedVersion(root)).toBe('1.0.0-1');
  });

  it.skipIf(noDnf !== undefined)(`install-rpm.sh stops with the failed step when the token is wrong${skipped(noDnf)}`, async () => {
    const root = track(await dnfRoot());
    const install = await installWithRpmScript(root, `${reference.origin}/api/install-rpm.sh?repo=repo-1`, 'pk_wrong_token');
    expect(install.code).not.toBe(0);
    expect(install.stderr).toContain('installing tools failed while refreshing tools (dnf makecache)');
  });

  it.skipIf(noZypper !== undefined)(`install-rpm.sh sets up an openSUSE Leap root with zypper and a private credentials file${skipped(noZypper)}`, async () => {
    const root = track(await zypperRoot());
    const install = await installWithRpmScript(root, `${reference.origin}/api/install-rpm.sh?repo=repo-1`, token);
    expect(install.stderr).not.toContain('failed while');
    expect(install.code).toBe(0);
    expect((await stat(join(root.path, 'etc/zypp/credentials.d/tools'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(root.path, 'etc/zypp/repos.d/tools.repo'), 'utf8')).toContain(
      `baseurl=${reference.rpmRepositoryUrl}/opensuse/leap-15.5?credentials=tools\n`,
    );
    expect((await zypper(root, ['search', packageName])).stdout).toContain(packageName);
  });
});
