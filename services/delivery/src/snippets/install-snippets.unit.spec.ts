import { INSTALL_CODENAMES, INSTALL_COMPONENTS } from '@packyard/formats';
import { describe, expect, it } from 'vitest';
import type { RepositoryRecord } from '../catalog/served-file';
import { installSnippets, resolveOrigin, TOKEN_PLACEHOLDER } from './install-snippets';

const deb: RepositoryRecord = { id: 'r1', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme', name: 'tools', ownerId: 'u1', codename: 'stable', component: 'main' };
const rpm: RepositoryRecord = { ...deb, id: 'r2', kind: 'RPM', name: 'rpms', codename: '', component: '' };
const origin = 'https://packages.example.com';

describe('installSnippets', () => {
  it.each(INSTALL_CODENAMES.flatMap(({ codename, distro }) => INSTALL_COMPONENTS.map((component) => [codename, distro, component])))(
    'DEB %s (%s) %s: a signed-by source line under the distro path, with that suite and component',
    (codename, distro, component) => {
      const snippets = installSnippets({ origin, repository: deb, codename, component });
      expect(snippets.apt).toContain(`deb [signed-by=/etc/apt/keyrings/tools.gpg] ${origin}/deb/acme/tools/${distro} ${codename} ${component}'`);
      expect(snippets.apt).toContain(`'deb-src [signed-by=/etc/apt/keyrings/tools.gpg] ${origin}/deb/acme/tools/${distro} ${codename} ${component}' | sudo tee`);
      expect(snippets.setupCommands!.oneLiner).toBe(
        `curl -fsSL '${origin}/api/install-deb.sh?repo=r1&codename=${codename}&component=${component}' | sudo bash -s -- ${TOKEN_PLACEHOLDER}`,
      );
    },
  );

  it('falls back to noble/main when the repository codename is no distro release, and keeps its own when it is', () => {
    expect(installSnippets({ origin, repository: deb }).apt).toContain('/deb/acme/tools/ubuntu noble main');
    expect(installSnippets({ origin, repository: { ...deb, codename: 'bookworm', component: 'contrib' } }).apt).toContain('/deb/acme/tools/debian bookworm contrib');
  });

  it('defaults to where the packages are: the repository’s own codename first, else the first that holds packages', () => {
    const stocked = [
      { distro: 'ubuntu', version: 'jammy', packageCount: 2 },
      { distro: 'debian', version: 'bookworm', packageCount: 1 },
    ];
    const snippets = installSnippets({ origin, repository: deb, stocked });
    expect(snippets.apt).toContain('/deb/acme/tools/ubuntu jammy main');
    expect(snippets).toMatchObject({ distro: 'ubuntu', codename: 'jammy', component: 'main', distributions: stocked });
    expect(snippets.setupCommands!.oneLiner).toContain('?repo=r1&codename=jammy&component=main');
    // asked for: the choice wins even where nothing is published yet
    expect(installSnippets({ origin, repository: deb, stocked, codename: 'noble' }).apt).toContain('/deb/acme/tools/ubuntu noble main');
  });

  it('names the distro in the script address for a suite several distros publish (a repository’s own codename)', () => {
    const stocked = [
      { distro: 'debian', version: 'stable', packageCount: 1 },
      { distro: 'ubuntu', version: 'stable', packageCount: 1 },
    ];
    const own = installSnippets({ origin, repository: deb, stocked });
    expect(own.apt).toContain('/deb/acme/tools/debian stable main');
    expect(own.setupCommands!.oneLiner).toContain('?repo=r1&distro=debian&codename=stable&component=main');
    expect(installSnippets({ origin, repository: deb, stocked, distro: 'ubuntu', codename: 'stable' }).apt).toContain('/deb/acme/tools/ubuntu stable main');
    expect(() => installSnippets({ origin, repository: deb, stocked, distro: 'arch', codename: 'stable' })).toThrow('Unknown distro');
  });

  it('gives the URLs, the placeholder in the token places, and the token instead when given', () => {
    const snippets = installSnippets({ origin, repository: deb });
    expect(snippets.repositoryUrl).toBe(`${origin}/deb/acme/tools`);
    expect(snippets.publicKeyUrl).toBe(`${origin}/deb/acme/tools/gpg.key`);
    expect(snippets.setupCommands).toMatchObject({ downloadScript: expect.stringMatching(/^curl -fsSL -o install-deb.sh '/), makeExecutable: 'chmod +x install-deb.sh', runInstaller: `sudo ./install-deb.sh ${TOKEN_PLACEHOLDER}` });
    expect(snippets.apt).toContain(`printf 'machine packages.example.com/deb/acme/tools login ${TOKEN_PLACEHOLDER}\\n'`);
    expect(installSnippets({ origin, repository: deb, token: 'pk_123' }).setupCommands!.runInstaller).toBe('sudo ./install-deb.sh pk_123');
  });

  it('writes both auth.conf forms for an http origin (apt 2.6 wants the scheme there), each without a password', () => {
    // apt reads auth.conf as blank-separated words: a bare `password` would take the next
    // line's `machine` as the password, and the edge refuses any password but the token
    expect(installSnippets({ origin: 'http://10.0.0.5:8080', repository: deb }).apt).toContain(
      `printf 'machine http://10.0.0.5:8080/deb/acme/tools login ${TOKEN_PLACEHOLDER}\\nmachine 10.0.0.5:8080/deb/acme/tools login ${TOKEN_PLACEHOLDER}\\n'`,
    );
  });

  it('gives RPM repositories a dnf .repo that checks both repomd.xml and every package signature, and no apt text', () => {
    const snippets = installSnippets({ origin, repository: rpm });
    expect(snippets.apt).toBe('');
    expect(snippets.yum).toContain(`baseurl=${origin}/rpm/acme/rpms/el/$releasever`);
    expect(snippets.yum).toMatch(/^repo_gpgcheck=1\ngpgcheck=1$/m);
    expect(snippets.yum).toContain('skip_if_unavailable=False');
    // the source packages' repository, off until dnf download --source asks for it, checked like the binary one
    const source = snippets.yum.slice(snippets.yum.indexOf('[rpms-source]'));
    expect(source).toMatch(new RegExp(`^\\[rpms-source\\]\nname=rpms \\(source packages\\)\nbaseurl=${origin}/rpm/acme/rpms/el/\\$releasever/SRPMS\nenabled=0\nrepo_gpgcheck=1\ngpgcheck=1\n`));
    expect(snippets.setupCommands!.oneLiner).toBe(`curl -fsSL '${origin}/api/install-rpm.sh?repo=r2' | sudo bash -s -- ${TOKEN_PLACEHOLDER}`);
  });

  it('refuses unknown codenames and tokens that would break the commands', () => {
    expect(() => installSnippets({ origin, repository: deb, codename: 'hamm' })).toThrow('Unknown codename');
    expect(() => installSnippets({ origin, repository: deb, token: 'a b; rm -rf /' })).toThrow('characters');
  });
});

describe('resolveOrigin', () => {
  it('prefers PUBLIC_URL over the request origin and refuses origins with paths', () => {
    expect(resolveOrigin('https://pkgs.example.com/', 'http://127.0.0.1:8080')).toBe('https://pkgs.example.com');
    expect(resolveOrigin(undefined, 'http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(() => resolveOrigin('https://pkgs.example.com/sub', '')).toThrow();
  });
});
