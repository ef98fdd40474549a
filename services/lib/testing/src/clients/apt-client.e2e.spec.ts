import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderInstallScript } from '@packyard/delivery/install-scripts/install-script';
import { aptGet, freshDebianRoot, installWithScript, runInRoot, type DebianRoot } from './debian-root';
import { startReferenceRepository, type ReferenceRepository } from './reference-repository';
import { toolsUnavailable } from '../servers/daemon';

// The real apt 2.6 of a bookworm root against a repository built by reprepro: proves the
// harness and install-deb.sh before Packyard's own delivery edge replaces the reference.

const token = 'pk_test_0123456789abcdef';
const packageName = 'packyard-hello';

const unavailable = toolsUnavailable(['debootstrap', 'reprepro', 'gpg', 'zstd', 'curl'], ['debootstrap', 'reprepro', 'gnupg', 'zstd', 'curl']);

describe.skipIf(unavailable !== undefined)(`install-deb.sh with apt in a bookworm root${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let reference: ReferenceRepository;
  const roots: DebianRoot[] = [];
  const newRoot = async () => {
    const root = await freshDebianRoot();
    roots.push(root);
    return root;
  };
  const scriptUrl = (query: string) => `${reference.origin}/api/install-deb.sh?repo=repo-1${query}`;

  beforeAll(async () => {
    reference = await startReferenceRepository({ workspace: 'acme', repository: 'tools', token, packages: [{ name: packageName, version: '1.0.0' }] });
    reference.servePublic('/api/install-deb.sh', (query) =>
      renderInstallScript('deb', {
        repositoryName: 'tools',
        repositoryUrl: reference.debRepositoryUrl,
        keyringUrl: reference.keyringUrl,
        codename: query.get('codename') ?? '',
        component: query.get('component') ?? 'main',
      }),
    );
  });
  afterEach(async () => {
    await Promise.all(roots.splice(0).map((root) => root.cleanup()));
  });
  afterAll(() => reference?.close());

  it('sets the repository up from the one-liner so apt-get install works, with the token only in auth.conf.d', async () => {
    const root = await newRoot();

    const install = await installWithScript(root, scriptUrl('&codename=bookworm&component=main'), token);
    expect(install.stderr).not.toContain('failed while');
    expect(install.code).toBe(0);

    const installed = await aptGet(root, ['install', '-y', packageName]);
    expect(installed.code).toBe(0);
    const status = await runInRoot(root, 'dpkg-query -W -f \'${Status} ${Version}\' "$1"', [packageName]);
    expect(status.stdout).toBe('install ok installed 1.0.0');

    const sources = await readFile(join(root.path, 'etc/apt/sources.list.d/tools.list'), 'utf8');
    expect(sources).toBe(
      `deb [signed-by=/etc/apt/keyrings/tools.gpg] ${reference.debRepositoryUrl}/debian bookworm main\n` +
        `deb-src [signed-by=/etc/apt/keyrings/tools.gpg] ${reference.debRepositoryUrl}/debian bookworm main\n`,
    );
    const auth = join(root.path, 'etc/apt/auth.conf.d/tools.conf');
    expect((await stat(auth)).mode & 0o777).toBe(0o600);
    expect(await readFile(auth, 'utf8')).toContain(token);
    const everythingElse = await runInRoot(root, 'grep -rl "$1" /etc/apt/sources.list /etc/apt/sources.list.d /etc/apt/keyrings || true', [token]);
    expect(everythingElse.stdout).toBe('');
  });

  it('uses the machine’s own codename when the console chose none', async () => {
    const root = await newRoot();
    expect((await installWithScript(root, scriptUrl(''), token)).code).toBe(0);
    expect(await readFile(join(root.path, 'etc/apt/sources.list.d/tools.list'), 'utf8')).toContain('/debian bookworm main');
  });

  it('treats a Debian derivative as Debian and stops clearly on a system it does not support', async () => {
    const root = await newRoot();
    const osRelease = join(root.path, 'etc/os-release');
    await writeFile(osRelease, 'ID=raspbian\nID_LIKE=debian\nVERSION_CODENAME=bookworm\n');
    expect((await installWithScript(root, scriptUrl(''), token)).code).toBe(0);
    expect(await readFile(join(root.path, 'etc/apt/sources.list.d/tools.list'), 'utf8')).toContain('/debian bookworm main');

    await writeFile(osRelease, 'ID=arch\nNAME="Arch Linux"\n');
    const unsupported = await installWithScript(root, scriptUrl(''), token);
    expect(unsupported.code).not.toBe(0);
    expect(unsupported.stderr).toContain("unsupported distribution 'arch'");
  });

  it('fails, naming the step, when the token is wrong, and apt-get update keeps failing with 401', async () => {
    const root = await newRoot();

    const install = await installWithScript(root, scriptUrl('&codename=bookworm&component=main'), 'pk_wrong_token');
    expect(install.code).not.toBe(0);
    expect(install.stderr).toContain('installing tools failed while refreshing tools');

    const update = await aptGet(root, ['update']);
    expect(update.code).not.toBe(0);
    expect(update.stderr + update.stdout).toMatch(/401/);
  });

  it('refuses repository metadata that no longer matches its signature and keeps the verified lists', async () => {
    const root = await newRoot();
    expect((await installWithScript(root, scriptUrl('&codename=bookworm'), token)).code).toBe(0);

    const inRelease = join(reference.servedDir, 'deb/acme/tools/debian/dists/bookworm/InRelease');
    const original = await readFile(inRelease, 'utf8');
    try {
      await writeFile(inRelease, original.replace('Label: reference', 'Label: tampered'));
      // apt only warns (exit 0) when a known repository's new InRelease fails verification
      // and keeps the lists it verified before; a first-time setup fails instead.
      const update = await aptGet(root, ['update']);
      expect(update.stderr + update.stdout).toMatch(/BADSIG/);
      const lists = await runInRoot(root, 'cat /var/lib/apt/lists/*_InRelease');
      expect(lists.stdout).toContain('Label: reference');
      expect(lists.stdout).not.toContain('Label: tampered');

      const fresh = await newRoot();
      const install = await installWithScript(fresh, scriptUrl('&codename=bookworm'), token);
      expect(install.code).not.toBe(0);
      expect(install.stderr).toMatch(/BADSIG/);
    } finally {
      await writeFile(inRelease, original);
    }
  });
});
