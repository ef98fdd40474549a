import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderInstallScript } from './install-script';

// Runs the rendered scripts with bash, up to the first check that needs a token: the
// assignments have run by then, so any injected command would have run too.

describe('rendered install scripts under bash', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'packyard-install-script-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const hostileName = (marker: string) => `x'; touch ${marker}; echo '$(touch ${marker})\`touch ${marker}\``;

  it.each(['deb', 'rpm'] as const)('install-%s.sh never runs commands hidden in the repository name', (kind) => {
    const marker = join(dir, 'pwned');
    const params = {
      repositoryName: hostileName(marker),
      repositoryUrl: `https://packyard.example/${kind}/acme/tools`,
      keyringUrl: 'https://packyard.example/keys/acme/tools.gpg',
      publicKeyUrl: 'https://packyard.example/keys/acme/tools.asc',
      component: 'main',
    };
    const script = kind === 'deb' ? renderInstallScript('deb', params) : renderInstallScript('rpm', params);
    const result = spawnSync('bash', ['-s', '--'], { input: script, encoding: 'utf8' });

    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`usage: install-${kind}.sh <TOKEN>`);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a token that would smuggle a second line into the credentials', () => {
    const script = renderInstallScript('rpm', {
      repositoryName: 'tools',
      repositoryUrl: 'https://packyard.example/rpm/acme/tools',
      publicKeyUrl: 'https://packyard.example/keys/acme/tools.asc',
    });
    const result = spawnSync('bash', ['-s', '--', 'token\ngpgcheck=0'], { input: script, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the token contains characters a Packyard token never has');
  });

  // dnf sends `username=` with an empty `password=` as it is; yum 3 (urlgrabber) sends no
  // credentials unless both are set, so it gets the token as the password too. Neither runs
  // on this Debian host for real, so a stub stands in for the package manager and the test
  // reads the .repo file the script wrote for it.
  it.each([
    ['dnf', ''],
    ['yum', 'pk_live_abc'],
  ] as const)('gives %s the token with the password it can send (%j)', async (packageManager, password) => {
    const root = join(dir, 'root');
    await mkdir(join(root, 'etc'), { recursive: true });
    await writeFile(join(root, 'etc/os-release'), 'ID="centos"\nVERSION_ID="7"\n');
    const bin = join(dir, 'bin');
    await mkdir(bin);
    for (const tool of ['id', 'install', 'cat', 'chmod']) await symlink(spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(bin, tool));
    await writeFile(join(bin, packageManager), '#!/bin/sh\nexit 0\n');
    await chmod(join(bin, packageManager), 0o755);
    const script = renderInstallScript('rpm', { repositoryName: 'tools', repositoryUrl: 'https://packyard.example/rpm/acme/tools', publicKeyUrl: 'https://packyard.example/rpm/acme/tools/gpg.key' });
    const result = spawnSync('/bin/bash', ['-s', '--', 'pk_live_abc'], { input: script, encoding: 'utf8', env: { PATH: bin, PACKYARD_INSTALL_ROOT: root } });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const repo = await readFile(join(root, 'etc/yum.repos.d/tools.repo'), 'utf8');
    expect(repo).toMatch(/^username=pk_live_abc$/m);
    expect(repo.split('\n')).toContain(`password=${password}`);
  });
});
