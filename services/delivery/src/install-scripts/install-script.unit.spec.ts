import { describe, expect, it } from 'vitest';
import { renderInstallScript, repositoryFileStem, shellQuote } from './install-script';

const deb = {
  repositoryName: 'tools',
  repositoryUrl: 'https://packyard.example/deb/acme/tools',
  keyringUrl: 'https://packyard.example/keys/acme/tools.gpg',
  codename: 'bookworm',
  component: 'main',
};
const rpm = {
  repositoryName: 'tools',
  repositoryUrl: 'https://packyard.example/rpm/acme/tools',
  publicKeyUrl: 'https://packyard.example/keys/acme/tools.asc',
};

describe('renderInstallScript', () => {
  it('fills every assignment of the deb template with quoted values and leaves the documentation alone', () => {
    const script = renderInstallScript('deb', deb);
    expect(script).toContain("REPOSITORY_URL='https://packyard.example/deb/acme/tools'\n");
    expect(script).toContain("KEYRING_URL='https://packyard.example/keys/acme/tools.gpg'\n");
    expect(script).toContain("CODENAME='bookworm'\nCOMPONENT='main'\nSTOCKED=''\n");
    expect(script).toContain("FILE_STEM='tools'\n");
    expect(script).toContain('#   @REPOSITORY_URL@');
    expect(script).not.toMatch(/^[A-Z_]+=@/m);
  });

  it('fills the rpm template with the armored key URL for gpgkey=', () => {
    const script = renderInstallScript('rpm', rpm);
    expect(script).toContain("PUBLIC_KEY_URL='https://packyard.example/keys/acme/tools.asc'\n");
    expect(script).toContain("REPOSITORY_URL='https://packyard.example/rpm/acme/tools'\n");
    expect(script).not.toMatch(/^[A-Z_]+=@/m);
  });

  it('leaves the codename empty when none was chosen, so the script uses the machine’s own', () => {
    expect(renderInstallScript('deb', { ...deb, codename: undefined })).toContain("CODENAME=''\n");
  });

  it('lists where the packages are, space-separated, and refuses entries that would break the script’s test', () => {
    expect(renderInstallScript('deb', { ...deb, distro: 'debian', stocked: ['debian/bookworm', 'ubuntu/noble'] })).toContain("DISTRO='debian'\nCODENAME='bookworm'\nCOMPONENT='main'\nSTOCKED='debian/bookworm ubuntu/noble'\n");
    expect(renderInstallScript('rpm', { ...rpm, stocked: ['el/9'] })).toContain("STOCKED='el/9'\n");
    expect(renderInstallScript('rpm', rpm)).toContain("STOCKED=''\n");
    expect(() => renderInstallScript('deb', { ...deb, stocked: ['debian/bookworm *'] })).toThrow(/invalid distribution/);
    expect(() => renderInstallScript('deb', { ...deb, distro: 'debian ubuntu' })).toThrow(/distro/);
  });

  it('drops a trailing slash so the script never writes a double slash into sources', () => {
    expect(renderInstallScript('deb', { ...deb, repositoryUrl: `${deb.repositoryUrl}/` })).toContain(
      "REPOSITORY_URL='https://packyard.example/deb/acme/tools'\n",
    );
  });

  it('quotes a hostile repository name into one literal and keeps it out of file names', () => {
    const hostile = `x'; touch /tmp/pwned; echo '$(id)\``;
    const script = renderInstallScript('deb', { ...deb, repositoryName: hostile });
    expect(script).toContain(`REPOSITORY_NAME='x'\\''; touch /tmp/pwned; echo '\\''$(id)\`'\n`);
    expect(script).toContain("FILE_STEM='x-touch-tmp-pwned-echo-id'\n");
  });

  it('refuses values that would corrupt the files the script writes', () => {
    expect(() => renderInstallScript('rpm', { ...rpm, repositoryName: 'tools\ngpgcheck=0' })).toThrow(/control characters/);
    expect(() => renderInstallScript('deb', { ...deb, repositoryUrl: 'https://packyard.example/deb/acme/my tools' })).toThrow(/plain URL/);
    expect(() => renderInstallScript('deb', { ...deb, keyringUrl: 'file:///etc/shadow' })).toThrow(/http or https/);
    expect(() => renderInstallScript('deb', { ...deb, repositoryUrl: 'https://user:pw@packyard.example/deb/a/b' })).toThrow(/credentials/);
    expect(() => renderInstallScript('deb', { ...deb, codename: 'bookworm main\ndeb' })).toThrow(/codename/);
    expect(() => renderInstallScript('deb', { ...deb, component: '' })).toThrow(/component/);
    expect(() => renderInstallScript('deb', { ...deb, component: '[trusted=yes]' })).toThrow(/component/);
  });
});

describe('repositoryFileStem', () => {
  it('keeps names that are already safe and reduces the rest to letters, digits and hyphens', () => {
    expect(repositoryFileStem('tools')).toBe('tools');
    expect(repositoryFileStem('Acme Tools_v2')).toBe('acme-tools-v2');
    expect(repositoryFileStem('../../etc/passwd')).toBe('etc-passwd');
    expect(repositoryFileStem('---')).toBe('packyard');
  });
});

describe('shellQuote', () => {
  it('closes and reopens the quote around each single quote', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('')).toBe("''");
  });
});
