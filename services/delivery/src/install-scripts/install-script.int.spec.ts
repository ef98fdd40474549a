import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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
});
