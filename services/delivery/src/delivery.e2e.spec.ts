import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INSTALL_CODENAMES, INSTALL_COMPONENTS } from '@packyard/formats';
import { runCommand } from '@packyard/testing/clients/run-command';
import {
  aptGet,
  buildDeb,
  buildRpm,
  dnf,
  dnfRoot,
  freshDebianRoot,
  installWithRpmScript,
  runInRoot,
  startPackyard,
  zypper,
  zypperRoot,
  type DebianRoot,
  type RpmRoot,
  type RunningPackyard,
  waitFor,
} from '@packyard/testing';

// The whole program and the real clients: apt 2.6 in a debootstrapped bookworm root,
// dnf and zypper with their own roots. Everything goes through the public API (upload,
// tokens, snippets) and the apt/yum edge, as a customer would do it.

// as behind a CDN or reverse proxy: the origin in instructions comes from X-Forwarded-*
const PROGRAM_ENV = { TRUST_PROXY: 'true' };

interface Snippets {
  apt: string;
  yum: string;
  publicKeyUrl: string;
  repositoryUrl: string;
  setupCommands: { oneLiner: string; downloadScript: string; makeExecutable: string; runInstaller: string };
  distributions: { distro: string; version: string; packageCount: number }[];
}


describe('apt, dnf and zypper install from Packyard', () => {
  let packyard: RunningPackyard;
  let idToken: string;
  let workspace: { id: string; slug: string };
  let packagesDir: string;
  let dataDir: string;
  const debianRoots: DebianRoot[] = [];
  const rpmRoots: RpmRoot[] = [];

  const api = async <T>(method: string, path: string, body?: unknown, expected = [200, 201, 204]): Promise<T> => {
    const response = await fetch(`${packyard.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${idToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!expected.includes(response.status)) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  };

  const upload = async (repositoryId: string, file: string, distribution: string): Promise<{ id: string }> => {
    const form = new FormData();
    form.set('distribution', distribution);
    form.set('file', new Blob([await readFile(file)]), basename(file));
    const response = await fetch(`${packyard.url}/api/v1/workspaces/${workspace.id}/repos/${repositoryId}/upload?wait=published`, {
      method: 'POST',
      headers: { authorization: `Bearer ${idToken}` },
      body: form,
    });
    const text = await response.text();
    if (response.status !== 201 && response.status !== 200) throw new Error(`upload of ${basename(file)} answered ${response.status}: ${text}`);
    return JSON.parse(text) as { id: string };
  };

  const createRepository = async (name: string, kind: 'DEB' | 'RPM', codename = 'bookworm', component = 'main') => {
    const repository = await api<{ id: string; name: string }>('POST', `/workspaces/${workspace.id}/repos`, { name, kind, codename, component });
    // an .rpm upload is signed with the repository key, which takes its 3-7 s of RSA-4096
    // generation (far more on a loaded machine) right after creation: wait until it is served
    if (kind === 'RPM') {
      const { publicKeyUrl } = await snippets(repository.id);
      await waitFor('the repository key', async () => ((await fetch(publicKeyUrl)).status === 200 ? true : undefined), { timeoutMs: 60_000 });
    }
    return repository;
  };
  const createToken = (repositoryId: string, name: string) => api<{ id: string; token: string }>('POST', `/repos/${repositoryId}/tokens`, { name });
  const snippets = (repositoryId: string, query: Record<string, string> = {}) =>
    api<Snippets>('GET', `/repos/${repositoryId}/snippets?${new URLSearchParams(query)}`);

  const debianRoot = async () => {
    const root = await freshDebianRoot();
    debianRoots.push(root);
    return root;
  };
  const installedVersion = async (root: DebianRoot, name: string) =>
    (await runInRoot(root, 'dpkg-query -W -f \'${Version}\' "$1" 2>/dev/null || true', [name])).stdout;

  beforeAll(async () => {
    packyard = await startPackyard({ env: PROGRAM_ENV, edgeWorkers: 2 });
    dataDir = packyard.dataDir;
    const email = `delivery-${Date.now()}@example.com`;
    const registered = await fetch(`${packyard.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery' }),
    });
    idToken = ((await registered.json()) as { idToken: string }).idToken;
    workspace = await api('POST', '/workspaces', { name: 'Acme Delivery', slug: 'acme-delivery', description: '' });
    packagesDir = await mkdtemp(join(tmpdir(), 'packyard-delivery-e2e-'));
  }, 60_000);
  afterEach(async () => {
    await Promise.all([...debianRoots.splice(0), ...rpmRoots.splice(0)].map((root) => root.cleanup()));
  });
  afterAll(async () => {
    await packyard?.dispose();
    // after the restart the program runs on a data folder it did not create
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (packagesDir) await rm(packagesDir, { recursive: true, force: true });
  });

  it('installs with the product’s own installer, upgrades to the next upload and forgets a deleted version; downloads, token use and egress move', async () => {
    const repository = await createRepository('tools', 'DEB');
    const { id: tokenId, token } = await createToken(repository.id, 'e2e-server');
    const first = await upload(repository.id, await buildDeb({ name: 'packyard-hello', version: '1.0.0', arch: 'all' }, packagesDir), 'debian/bookworm');

    const { setupCommands } = await snippets(repository.id, { codename: 'bookworm', component: 'main' });
    expect(setupCommands.oneLiner).toContain('YOUR_TOKEN');
    const root = await debianRoot();
    const installer = await runInRoot(root, setupCommands.oneLiner.replace('YOUR_TOKEN', token));
    expect(installer.stderr).not.toContain('failed while');
    expect(installer.code).toBe(0);
    expect((await aptGet(root, ['install', '-y', 'packyard-hello'])).code).toBe(0);
    expect(await installedVersion(root, 'packyard-hello')).toBe('1.0.0');

    await upload(repository.id, await buildDeb({ name: 'packyard-hello', version: '1.1.0', arch: 'all' }, packagesDir), 'debian/bookworm');
    expect((await aptGet(root, ['update'])).code).toBe(0);
    const upgrade = await aptGet(root, ['install', '--only-upgrade', '-y', 'packyard-hello']);
    expect(upgrade.code).toBe(0);
    expect(await installedVersion(root, 'packyard-hello')).toBe('1.1.0');

    await api('DELETE', `/workspaces/${workspace.id}/repos/${repository.id}/packages/${first.id}`);
    await waitFor('1.0.0 to leave the index', async () => {
      await aptGet(root, ['update']);
      const madison = await runInRoot(root, 'apt-cache madison packyard-hello');
      return madison.stdout.includes('1.1.0') && !madison.stdout.includes('1.0.0') ? true : undefined;
    });

    const packages = await waitFor('downloads to be counted', async () => {
      const list = await api<{ items: { version: string; downloads: number }[] }>('GET', `/workspaces/${workspace.id}/repos/${repository.id}/packages`);
      return list.items.find((item) => item.version === '1.1.0' && item.downloads >= 1) ? list : undefined;
    });
    expect(packages.items.find((item) => item.version === '1.1.0')!.downloads).toBe(1);
    const used = await waitFor('the token to be marked used', async () => {
      const tokens = await api<{ id: string; lastUsedAt: string; usageCount: number }[]>('GET', `/repos/${repository.id}/tokens`);
      const mine = tokens.find((item) => item.id === tokenId);
      return mine && mine.usageCount > 0 && mine.lastUsedAt ? mine : undefined;
    });
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThan(Date.now() - 120_000);
    const usage = await waitFor('egress to be counted', async () => {
      const summary = await api<{ egressBytesUsed: number }>('GET', '/usage/summary');
      return summary.egressBytesUsed > 0 ? summary : undefined;
    });
    expect(usage.egressBytesUsed).toBeGreaterThan(1000);
    const { bandwidthBytesMonth } = await api<{ bandwidthBytesMonth: number }>('GET', `/workspaces/${workspace.id}`);
    expect(bandwidthBytesMonth).toBeGreaterThan(1000);
  }, 300_000);

  it('builds the instructions for the origin the console was reached at (X-Forwarded-* behind a trusted proxy)', async () => {
    const repository = await createRepository('forwarded', 'DEB');
    const response = await fetch(`${packyard.url}/api/v1/repos/${repository.id}/snippets`, {
      headers: { authorization: `Bearer ${idToken}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'packages.example.com' },
    });
    const forwarded = (await response.json()) as Snippets;
    expect(forwarded.repositoryUrl).toBe('https://packages.example.com/deb/acme-delivery/forwarded');
    expect(forwarded.setupCommands.oneLiner).toContain(`'https://packages.example.com/api/install-deb.sh?repo=${repository.id}&codename=bookworm&component=main'`);
    const script = await fetch(`${packyard.url}/api/install-deb.sh?repo=${repository.id}`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'packages.example.com' } });
    expect(script.headers.get('content-type')).toMatch(/^text\/x-shellscript/);
    expect(await script.text()).toContain("REPOSITORY_URL='https://packages.example.com/deb/acme-delivery/forwarded'");
  });

  it('the manual APT instructions work verbatim for every codename and component the console offers', async () => {
    // a repository's packages live in its own component (the others are published empty),
    // so each component is tried with a repository created with it
    const repositories = [];
    for (const component of INSTALL_COMPONENTS) {
      const repository = await createRepository(`everywhere-${component}`, 'DEB', 'stable', component);
      const { token } = await createToken(repository.id, 'e2e-manual');
      await upload(repository.id, await buildDeb({ name: `packyard-everywhere-${component}`, version: '2.0.0', arch: 'all' }, packagesDir), 'any-distro/any-version');
      repositories.push({ component, repository, token });
    }
    const root = await debianRoot();
    const failures: string[] = [];
    for (const { codename } of INSTALL_CODENAMES) {
      for (const { component, repository, token } of repositories) {
        const { apt } = await snippets(repository.id, { codename, component, token });
        await runInRoot(root, 'rm -f /etc/apt/sources.list.d/* /etc/apt/auth.conf.d/* /var/lib/apt/lists/*_* 2>/dev/null; true');
        const setup = await runInRoot(root, `set -e\n${apt}`);
        const policy = await runInRoot(root, 'apt-cache policy "$1"', [`packyard-everywhere-${component}`]);
        if (setup.code !== 0 || /^(W|E):/m.test(setup.stdout + setup.stderr) || !policy.stdout.includes('Candidate: 2.0.0')) {
          failures.push(`${codename} ${component}: exit ${setup.code}\n${setup.stdout.trim()}\n${setup.stderr.trim()}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('the installer on Debian bookworm goes where the packages are: the machine’s own when the choice has none, else it names the ones that exist', async () => {
    const here = await createRepository('stocked-here', 'DEB', 'stable');
    const elsewhere = await createRepository('stocked-elsewhere', 'DEB', 'stable');
    const { token: hereToken } = await createToken(here.id, 'e2e-here');
    const { token: elsewhereToken } = await createToken(elsewhere.id, 'e2e-elsewhere');
    await upload(here.id, await buildDeb({ name: 'packyard-here', version: '1.0.0', arch: 'all' }, packagesDir), 'debian/bookworm');
    await upload(elsewhere.id, await buildDeb({ name: 'packyard-elsewhere', version: '1.0.0', arch: 'all' }, packagesDir), 'ubuntu/noble');

    // the console's default is where the packages are, not noble or the codename "stable"
    const stocked = await waitFor('the edge to know where the packages are', async () => {
      const found = await snippets(here.id);
      return found.distributions.length > 0 ? found : undefined;
    });
    expect(stocked.distributions).toEqual([{ distro: 'debian', version: 'bookworm', packageCount: 1 }]);
    expect(stocked.apt).toContain(`${stocked.repositoryUrl}/debian bookworm main`);

    // noble chosen, nothing there: this bookworm machine gets its own distribution, which has the package
    const root = await debianRoot();
    const noble = await snippets(here.id, { codename: 'noble', component: 'main' });
    const fellBack = await runInRoot(root, noble.setupCommands.oneLiner.replace('YOUR_TOKEN', hereToken));
    expect(fellBack.code).toBe(0);
    expect(fellBack.stderr).toContain("has no packages for ubuntu/noble; using this machine's debian/bookworm");
    expect(await readFile(join(root.path, 'etc/apt/sources.list.d/stocked-here.list'), 'utf8')).toContain(`${stocked.repositoryUrl}/debian bookworm main`);
    expect((await aptGet(root, ['install', '-y', 'packyard-here'])).code).toBe(0);

    // bookworm chosen, packages only for ubuntu/noble: a message that names them, nothing written
    await waitFor('the edge to know where the packages are', async () => ((await snippets(elsewhere.id)).distributions.length > 0 ? true : undefined));
    const bookworm = await snippets(elsewhere.id, { codename: 'bookworm', component: 'main' });
    const refused = await runInRoot(root, bookworm.setupCommands.oneLiner.replace('YOUR_TOKEN', elsewhereToken));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('stocked-elsewhere has no packages for debian/bookworm (this machine runs debian/bookworm); it has packages for: ubuntu/noble.');
    expect((await runInRoot(root, 'ls /etc/apt/sources.list.d')).stdout).not.toContain('stocked-elsewhere');
  }, 300_000);

  it('the RPM installer names the distributions that hold packages when this machine’s has none', async () => {
    const repository = await createRepository('fedora-only', 'RPM');
    const { token } = await createToken(repository.id, 'e2e-fedora');
    await upload(repository.id, await buildRpm({ name: 'packyard-fedora', version: '1.0.0', release: '1', arch: 'noarch' }, packagesDir), 'fedora/39');
    await waitFor('the edge to know where the packages are', async () => ((await snippets(repository.id)).distributions.length > 0 ? true : undefined));
    const scriptUrl = /'(http[^']+)'/.exec((await snippets(repository.id)).setupCommands.oneLiner)![1];
    const rocky = await dnfRoot();
    rpmRoots.push(rocky);
    const refused = await installWithRpmScript(rocky, scriptUrl, token);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('fedora-only has no packages for el/9 (this machine, rocky 9.4); it has packages for: fedora/39.');
  }, 120_000);

    it('dnf installs an uploaded noarch rpm for el/9 with gpgcheck=1 and repo_gpgcheck=1, the served rpm passes rpm -K; zypper installs it with pkg_gpgcheck=1', async () => {
    const repository = await createRepository('rpms', 'RPM');
    const { token } = await createToken(repository.id, 'e2e-rpm');
    await upload(repository.id, await buildRpm({ name: 'packyard-hello', version: '1.0.0', release: '1', arch: 'noarch' }, packagesDir), 'el/9');
    const { repositoryUrl, publicKeyUrl, yum } = await snippets(repository.id);
    expect(yum).toContain(`baseurl=${repositoryUrl}/el/$releasever`);
    const el9 = { id: 'rpms', baseUrl: `${repositoryUrl}/el/9`, publicKeyUrl, token };
    // both key URLs answer without a token; repomd.xml itself does not
    const repomdKey = await fetch(`${el9.baseUrl}/repodata/repomd.xml.key`);
    expect(repomdKey.status).toBe(200);
    expect(await repomdKey.text()).toContain('BEGIN PGP PUBLIC KEY BLOCK');
    expect((await fetch(publicKeyUrl)).status).toBe(200);
    expect((await fetch(`${el9.baseUrl}/repodata/repomd.xml`)).status).toBe(401);

    const dnfHome = await dnfRoot(el9);
    rpmRoots.push(dnfHome);
    const installed = await dnf(dnfHome, ['install', 'packyard-hello']);
    expect(installed.stderr).not.toMatch(/signature|GPG check FAILED/i);
    expect(installed.code).toBe(0);
    const query = await runCommand('rpm', ['--root', dnfHome.path, '-q', '--qf', '%{VERSION}-%{RELEASE}', 'packyard-hello']);
    expect(query.stdout).toBe('1.0.0-1');
    // the file delivery serves carries the repository's header signature: rpm -K (with the key
    // dnf imported from gpgkey=) checks it, and it fails where the key is unknown
    const served = await fetch(`${el9.baseUrl}/Packages/el/9/p/packyard-hello-1.0.0-1.noarch.rpm`, { headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` } });
    expect(served.status).toBe(200);
    const servedFile = join(packagesDir, 'served-packyard-hello.rpm');
    await writeFile(servedFile, Buffer.from(await served.arrayBuffer()));
    const checked = await runCommand('rpm', ['--root', dnfHome.path, '-Kv', servedFile]);
    expect(checked.stdout).toMatch(/Header V4 RSA\/SHA256 Signature, key ID [0-9a-f]{8}: OK/);
    expect(checked.code).toBe(0);
    const untrusting = await mkdtemp(join(tmpdir(), 'packyard-rpmdb-'));
    try {
      await runCommand('rpm', ['--dbpath', untrusting, '--initdb']);
      expect((await runCommand('rpm', ['--dbpath', untrusting, '-K', servedFile])).stdout).toContain('SIGNATURES NOT OK');
    } finally {
      await rm(untrusting, { recursive: true, force: true });
    }

    // the product's own installer, as the one-liner runs it, aimed at an EL 9 root
    const scriptUrl = /'(http[^']+)'/.exec((await snippets(repository.id)).setupCommands.oneLiner)![1];
    const scripted = await dnfRoot();
    rpmRoots.push(scripted);
    const installer = await installWithRpmScript(scripted, scriptUrl, token);
    expect(installer.stderr).not.toContain('failed while');
    expect(installer.code).toBe(0);
    expect((await dnf(scripted, ['install', 'packyard-hello'])).code).toBe(0);

    const zypperHome = await zypperRoot(el9);
    rpmRoots.push(zypperHome);
    const refreshed = await zypper(zypperHome, ['--gpg-auto-import-keys', 'refresh', 'rpms']);
    expect(refreshed.code).toBe(0);
    const zypperInstall = await zypper(zypperHome, ['install', 'packyard-hello']);
    expect(zypperInstall.stdout + zypperInstall.stderr).not.toMatch(/signature verification failed|NOKEY/i);
    expect(zypperInstall.code).toBe(0);
    const zypperQuery = await runCommand('rpm', ['--root', zypperHome.path, '-q', '--qf', '%{VERSION}-%{RELEASE}', 'packyard-hello']);
    expect(zypperQuery.stdout).toBe('1.0.0-1');
  }, 300_000);

  it('dnf resolves and shows the dependencies of packages built in ISO-8859-1 by their characters', async () => {
    const repository = await createRepository('latin1', 'RPM');
    const { token } = await createToken(repository.id, 'e2e-latin1');
    const requirement = '\u00e0\u00e1\u00e2\u00e3\u00e4\u00e5\u00e7';
    await upload(repository.id, await buildRpm({ name: 'packyard-latin-provider', version: '1.0', release: '1', arch: 'noarch', encoding: 'latin1', provides: [requirement] }, packagesDir), 'el/9');
    await upload(
      repository.id,
      await buildRpm({ name: 'packyard-latin-consumer', version: '1.0', release: '1', arch: 'noarch', encoding: 'latin1', summary: 'Caf\u00e9 cr\u00e8me', requires: [requirement] }, packagesDir),
      'el/9',
    );
    const { repositoryUrl, publicKeyUrl } = await snippets(repository.id);
    const home = await dnfRoot({ id: 'latin1', baseUrl: `${repositoryUrl}/el/9`, publicKeyUrl, token });
    rpmRoots.push(home);

    const requires = await dnf(home, ['repoquery', '--requires', 'packyard-latin-consumer']);
    expect(requires.stdout.split('\n')).toContain(requirement);
    expect((await dnf(home, ['info', 'packyard-latin-consumer'])).stdout).toMatch(/^Summary\s+: Café crème$/m);
    const installed = await dnf(home, ['install', 'packyard-latin-consumer']);
    expect(installed.code).toBe(0);
    const query = await runCommand('rpm', ['--root', home.path, '-q', 'packyard-latin-provider']);
    expect(query.stdout.trim()).toBe('packyard-latin-provider-1.0-1.noarch');
  }, 300_000);

  it('wrong, missing and revoked tokens fail with 401 in apt and dnf; an account token with read works', async () => {
    const deb = await createRepository('guarded', 'DEB');
    const rpm = await createRepository('guarded-rpm', 'RPM');
    const debToken = await createToken(deb.id, 'revoked-soon');
    const rpmToken = await createToken(rpm.id, 'revoked-soon');
    await upload(deb.id, await buildDeb({ name: 'packyard-guarded', version: '1.0.0', arch: 'all' }, packagesDir), 'debian/bookworm');
    await upload(rpm.id, await buildRpm({ name: 'packyard-guarded', version: '1.0.0', release: '1', arch: 'noarch' }, packagesDir), 'el/9');
    const { token: accountToken } = await api<{ token: string }>('POST', '/tokens', { name: 'e2e-read', scopes: ['read'] });

    const root = await debianRoot();
    const aptWith = async (token: string | undefined) => {
      const { apt } = await snippets(deb.id, { codename: 'bookworm', component: 'main', ...(token ? { token } : {}) });
      await runInRoot(root, 'rm -f /etc/apt/sources.list.d/* /etc/apt/auth.conf.d/* /var/lib/apt/lists/*_* 2>/dev/null; true');
      const script = token ? apt : apt.split('\n').filter((line) => !line.includes('auth.conf.d')).join('\n');
      return runInRoot(root, `set -e\n${script}`);
    };
    const { repositoryUrl, publicKeyUrl } = await snippets(rpm.id);
    const dnfWith = async (token: string) => {
      const home = await dnfRoot({ id: 'guarded', baseUrl: `${repositoryUrl}/el/9`, publicKeyUrl, token });
      rpmRoots.push(home);
      return dnf(home, ['makecache']);
    };

    for (const bad of ['pk_wrong_token', undefined]) {
      const apt = await aptWith(bad);
      expect(apt.code).not.toBe(0);
      expect(apt.stderr).toContain('401');
    }
    const dnfWrong = await dnfWith('pk_wrong_token');
    expect(dnfWrong.code).not.toBe(0);
    expect(dnfWrong.stderr).toContain('401');

    expect((await aptWith(accountToken)).code).toBe(0);
    expect((await aptWith(debToken.token)).code).toBe(0);
    expect((await dnfWith(rpmToken.token)).code).toBe(0);

    await api('DELETE', `/repos/${deb.id}/tokens/${debToken.id}`);
    await api('DELETE', `/repos/${rpm.id}/tokens/${rpmToken.id}`);
    // delivery reuses a token's verdict for at most 4 s
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const aptRevoked = await aptWith(debToken.token);
    expect(aptRevoked.code).not.toBe(0);
    expect(aptRevoked.stderr).toContain('401');
    const dnfRevoked = await dnfWith(rpmToken.token);
    expect(dnfRevoked.code).not.toBe(0);
    expect(dnfRevoked.stderr).toContain('401');
  }, 300_000);

  it('apt update never sees a hash sum mismatch or a bad signature while 50 uploads are published', async () => {
    const repository = await createRepository('busy', 'DEB');
    const { token } = await createToken(repository.id, 'e2e-busy');
    await upload(repository.id, await buildDeb({ name: 'packyard-busy-0', version: '1.0.0', arch: 'all' }, packagesDir), 'debian/bookworm');
    const files = [];
    for (let i = 1; i <= 50; i++) files.push(await buildDeb({ name: `packyard-busy-${i}`, version: '1.0.0', arch: 'all' }, packagesDir));
    const root = await debianRoot();
    const { apt } = await snippets(repository.id, { codename: 'bookworm', component: 'main', token });
    expect((await runInRoot(root, `set -e\n${apt}`)).code).toBe(0);

    let uploading = true;
    let updates = 0;
    const uploads = (async () => {
      try {
        // a few at a time, as a CI pipeline publishing a release would; each batch waits for an
        // apt update that ran beside it, so that however fast publishing gets, every batch's
        // publications meet a running update (a faster publisher once left only three)
        for (let i = 0; i < files.length; i += 5) {
          const updatesBefore = updates;
          await Promise.all(files.slice(i, i + 5).map((file) => upload(repository.id, file, 'debian/bookworm')));
          while (updates <= updatesBefore) await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        uploading = false;
      }
    })();
    const problems: string[] = [];
    while (uploading) {
      const update = await aptGet(root, ['update', '-o', 'APT::Update::Error-Mode=any']);
      updates += 1;
      if (update.code !== 0 || /Hash Sum mismatch|NO_PUBKEY|BADSIG|not signed|Clearsigned/i.test(update.stdout + update.stderr)) {
        problems.push(`update ${updates}: exit ${update.code}\n${update.stdout}\n${update.stderr}`);
      }
    }
    await uploads;
    expect(problems).toEqual([]);
    expect(updates).toBeGreaterThanOrEqual(files.length / 5);
    // the upload answered once repository published; delivery follows its event within moments
    await waitFor('the last upload to be served', async () => {
      expect((await aptGet(root, ['update'])).code).toBe(0);
      const policy = await runInRoot(root, 'apt-cache policy packyard-busy-50');
      return policy.stdout.includes('Candidate: 1.0.0') ? true : undefined;
    }, { timeoutMs: 5_000 });

    // Packages.gz of 51 packages is several gzip members (formats/common/gzip-blocks.ts):
    // apt's own reader of compressed files (FileFd, which apt-helper cat-file uses) reads them all
    const { repositoryUrl } = await snippets(repository.id);
    const packagesGz = await fetch(`${repositoryUrl}/debian/dists/bookworm/main/binary-amd64/Packages.gz`, {
      headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` },
    });
    expect(packagesGz.status).toBe(200);
    await writeFile(join(root.path, 'tmp/Packages.gz'), Buffer.from(await packagesGz.arrayBuffer()));
    const listed = await runInRoot(root, "/usr/lib/apt/apt-helper cat-file /tmp/Packages.gz | grep -c '^Package: packyard-busy-'");
    expect(listed.stdout.trim()).toBe('51');
  }, 600_000);

  it('serves the same publication after a restart, from its own read model', async () => {
    const repository = await createRepository('durable', 'DEB');
    const { token } = await createToken(repository.id, 'e2e-restart');
    await upload(repository.id, await buildDeb({ name: 'packyard-durable', version: '1.0.0', arch: 'all' }, packagesDir), 'debian/bookworm');
    const path = new URL((await snippets(repository.id)).repositoryUrl).pathname;
    const inRelease = async (origin: string) => {
      const response = await fetch(`${origin}${path}/debian/dists/bookworm/InRelease`, {
        headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` },
      });
      return response.status === 200 ? response.text() : undefined;
    };
    await waitFor('the publication to be served', () => inRelease(packyard.url));
    // settled: no publication of this repository is still on its way to the edge
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = await inRelease(packyard.url);

    await packyard.stop();
    packyard = await startPackyard({ dataDir: packyard.dataDir, env: PROGRAM_ENV, edgeWorkers: 2 });
    expect(await inRelease(packyard.url)).toBe(before);
  }, 120_000);
});

