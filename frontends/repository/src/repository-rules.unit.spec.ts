import { describe, expect, it } from 'vitest';
import {
  packageIdFromPath,
  packageInstallCommand,
  canCreateRepoToken,
  canStartUpload,
  ciUploadCommand,
  debKeyCommand,
  distributionEntryPoint,
  isBrowsePath,
  packagesIn,
  codenameNote,
  distributionChoices,
  keyNearExpiry,
  installComponents,
  installScriptPath,
  maskToken,
  MAX_UPLOAD_BYTES,
  packageDeleteConfirmation,
  packageFileUrl,
  pageCount,
  queueItem,
  repositoryFileStem,
  rpmKeyCommand,
  tabFromPath,
  uploadDistributions,
  uploadStatusText,
  validateUploadFile,
  withToken,
} from './repository-rules';

const file = (name: string, size = 10) => new File([new Uint8Array(Math.min(size, 16))], name, { type: 'application/octet-stream' }) as File & { size: number };
const sized = (name: string, size: number) => Object.defineProperty(file(name), 'size', { value: size }) as File;

describe('repository tabs', () => {
  it('starts on Overview and reads the tab from the path', () => {
    expect(tabFromPath(undefined)).toBe('overview');
    expect(tabFromPath('')).toBe('overview');
    expect(tabFromPath('upload')).toBe('upload');
    expect(tabFromPath('keys/extra')).toBe('keys');
    expect(tabFromPath('nonsense')).toBe('overview');
  });
});

describe('packages', () => {
  it('asks with the exact confirmation text', () => {
    expect(packageDeleteConfirmation('hello', '1.0-1')).toBe('Are you sure you want to delete "hello 1.0-1"? This action cannot be undone.');
  });
  it('counts pages of 20, at least one', () => {
    expect([pageCount(0), pageCount(20), pageCount(21), pageCount(41)]).toEqual([1, 1, 2, 3]);
  });
  it('finds the pool file where the edge serves it', () => {
    const deb = { kind: 'DEB' as const, component: 'main' };
    expect(packageFileUrl('http://h/deb/ws/tools', deb, { name: 'hello', filename: 'hello_1.0_amd64.deb', distribution: 'debian/bookworm' })).toBe(
      'http://h/deb/ws/tools/debian/pool/main/h/hello/debian/bookworm/hello_1.0_amd64.deb',
    );
    expect(packageFileUrl('http://h/deb/ws/tools', deb, { name: 'libfoo', filename: 'libfoo_1_all.deb', distribution: 'any-distro/any-version' })).toBe(
      'http://h/deb/ws/tools/ubuntu/pool/main/libf/libfoo/any-distro/any-version/libfoo_1_all.deb',
    );
    expect(packageFileUrl('http://h/rpm/ws/infra', { kind: 'RPM', component: '' }, { name: 'Hello', filename: 'Hello-1-1.x86_64.rpm', distribution: 'el/9' })).toBe(
      'http://h/rpm/ws/infra/el/9/Packages/el/9/h/Hello-1-1.x86_64.rpm',
    );
    expect(packageFileUrl('http://h/rpm/ws/infra', { kind: 'RPM' }, { name: 'x', filename: 'x.rpm' })).toBeUndefined();
  });
});

describe('upload', () => {
  it('offers the spec distributions per kind', () => {
    expect(uploadDistributions('DEB')).toHaveLength(19);
    expect(uploadDistributions('DEB')[0]).toBe('ubuntu/noble');
    expect(uploadDistributions('RPM')).toEqual(['el/9', 'el/8', 'el/7', 'fedora/39', 'fedora/38', 'fedora/37', 'opensuse/tumbleweed', 'opensuse/leap-15.5', 'any-distro/any-version']);
  });
  it('checks the extension (any case) and 100 MB', () => {
    expect(validateUploadFile(file('a.DEB'), 'DEB')).toBeUndefined();
    expect(validateUploadFile(file('a.rpm'), 'DEB')).toBe('File must be a .deb package');
    expect(validateUploadFile(file('a.deb'), 'RPM')).toBe('File must be a .rpm package');
    expect(MAX_UPLOAD_BYTES).toBe(104_857_600);
    expect(validateUploadFile(sized('a.rpm', MAX_UPLOAD_BYTES), 'RPM')).toBeUndefined();
    expect(validateUploadFile(sized('a.rpm', MAX_UPLOAD_BYTES + 1), 'RPM')).toBe('File must be smaller than 100 MB');
  });
  it('queues invalid files in error and valid ones ready', () => {
    const bad = queueItem(file('a.txt'), 'el/9', 'RPM');
    const good = queueItem(file('a.rpm'), 'el/9', 'RPM');
    expect([bad.status, uploadStatusText(bad), canStartUpload(bad)]).toEqual(['error', 'File must be a .rpm package', false]);
    expect([good.status, uploadStatusText(good), canStartUpload(good)]).toEqual(['pending', 'Ready to upload', true]);
    expect(canStartUpload({ ...good, distribution: '' })).toBe(false);
    expect(uploadStatusText({ status: 'uploading', progress: 42 })).toBe('Uploading... 42%');
    expect(uploadStatusText({ status: 'completed', progress: 100 })).toBe('Upload complete');
    expect(uploadStatusText({ status: 'error', progress: 0 })).toBe('Upload failed');
  });
});

describe('uploads from CI', () => {
  it('puts the distribution before the file and waits for publication', () => {
    expect(ciUploadCommand('https://pkgs.example.com/', 'w 1', { id: 'r1', kind: 'DEB' }, 'debian/bookworm')).toBe(
      [
        'curl -fsS -H "Authorization: Bearer $PACKYARD_TOKEN" \\',
        '  -F distribution=debian/bookworm \\',
        '  -F file=@./my-package_1.0_amd64.deb \\',
        "  'https://pkgs.example.com/api/v1/workspaces/w%201/repos/r1/upload?wait=published'",
      ].join('\n'),
    );
    expect(ciUploadCommand('http://h', 'w', { id: 'r2', kind: 'RPM' }, '')).toContain('-F distribution=el/9 \\\n  -F file=@./my-package-1.0-1.x86_64.rpm');
  });
});

describe('browse view', () => {
  it('shows in an index what apt or dnf sees there, and where they start reading', () => {
    const packages = [
      { name: 'own', distribution: 'debian/bookworm' },
      { name: 'distro-wide', distribution: 'debian/any-version' },
      { name: 'everywhere', distribution: 'any-distro/any-version' },
      { name: 'elsewhere', distribution: 'ubuntu/noble' },
    ];
    expect(packagesIn(packages, 'debian', 'bookworm').map((pkg) => pkg.name)).toEqual(['own', 'distro-wide', 'everywhere']);
    expect(packagesIn(packages, 'ubuntu', 'jammy').map((pkg) => pkg.name)).toEqual(['everywhere']);
    expect(distributionEntryPoint('http://h/deb/ws/tools/', 'DEB', 'debian', 'bookworm')).toBe('http://h/deb/ws/tools/debian/dists/bookworm/InRelease');
    expect(distributionEntryPoint('http://h/rpm/ws/rpms', 'RPM', 'el', '9')).toBe('http://h/rpm/ws/rpms/el/9/repodata/repomd.xml');
    expect([isBrowsePath('browse'), isBrowsePath('packages'), isBrowsePath(undefined)]).toEqual([true, false, false]);
  });
});

describe('keys', () => {
  it('names the keyring after the repository as delivery does', () => {
    expect(repositoryFileStem('Acme Tools_v2')).toBe('acme-tools-v2');
    expect(repositoryFileStem('---')).toBe('packyard');
    expect(debKeyCommand('http://h/deb/ws/Tools/', 'Tools')).toBe(
      "sudo install -d -m 0755 /etc/apt/keyrings && curl -fsSL 'http://h/deb/ws/Tools/keyring.gpg' | sudo tee /etc/apt/keyrings/tools.gpg >/dev/null",
    );
    expect(rpmKeyCommand('http://h/rpm/ws/x/gpg.key')).toBe("sudo rpm --import 'http://h/rpm/ws/x/gpg.key'");
  });
});

describe('install', () => {
  it('defaults codename and component to the repository values when offered', () => {
    expect(installComponents({ component: 'contrib' })).toEqual(['contrib', 'main', 'non-free']);
    expect(installComponents({ component: 'extras' })).toEqual(['extras', 'main', 'contrib', 'non-free']);
    expect(installComponents({ component: '' })).toEqual(['main', 'contrib', 'non-free']);
  });
  it('masks, requires a name and puts the token into the commands', () => {
    expect(maskToken('pkyd_abcdefghijkl')).toBe('pkyd_abc…');
    expect(canCreateRepoToken('   ')).toBe(false);
    expect(canCreateRepoToken(' ci ')).toBe(true);
    expect(withToken("curl -fsSL 'u' | sudo bash -s -- YOUR_TOKEN", 'T1')).toBe("curl -fsSL 'u' | sudo bash -s -- T1");
    expect(installScriptPath("curl -fsSL -o install-deb.sh 'http://h:8080/api/install-deb.sh?repo=r1&codename=bookworm&component=main'")).toBe('/api/install-deb.sh?repo=r1&codename=bookworm&component=main');
    expect(installScriptPath("curl -fsSL -o install-rpm.sh 'https://h/api/install-rpm.sh?repo=r2'")).toBe('/api/install-rpm.sh?repo=r2');
  });
  it('offers the distributions that hold packages, else the spec codenames', () => {
    expect(distributionChoices([]).map((choice) => [choice.value, choice.label])).toEqual([
      ['ubuntu/noble', 'noble (Ubuntu 24.04)'],
      ['ubuntu/jammy', 'jammy (Ubuntu 22.04)'],
      ['ubuntu/focal', 'focal (Ubuntu 20.04)'],
      ['debian/bookworm', 'bookworm (Debian 12)'],
      ['debian/bullseye', 'bullseye (Debian 11)'],
    ]);
    const stocked = distributionChoices([
      { distro: 'debian', version: 'stable', packageCount: 1 },
      { distro: 'debian', version: 'bookworm', packageCount: 3 },
      { distro: 'kali', version: 'kali-rolling', packageCount: 1 },
    ]);
    expect(stocked.map((choice) => [choice.value, choice.label])).toEqual([
      ['debian/stable', 'stable (debian) · 1 package'],
      ['debian/bookworm', 'bookworm (Debian 12) · 3 packages'],
      ['kali/kali-rolling', 'kali-rolling (kali) · 1 package'],
    ]);
  });
  it('explains a codename no distribution has', () => {
    expect(codenameNote('bookworm')).toBeUndefined();
    expect(codenameNote('')).toBeUndefined();
    expect(codenameNote('stable')).toMatch(/^"stable" is this repository's own suite name, not a distribution/);
  });
});

describe('keyNearExpiry', () => {
  const now = Date.parse('2026-06-01T00:00:00.000Z');
  const inDays = (days: number) => new Date(now + days * 86_400_000).toISOString();

  it('flags a current key ending within 60 days, never a key without expiry or one that no longer signs alone', () => {
    expect(keyNearExpiry({ status: 'current', expiresAt: inDays(59) }, now)).toBe(true);
    expect(keyNearExpiry({ status: 'current', expiresAt: inDays(61) }, now)).toBe(false);
    expect(keyNearExpiry({ status: 'current', expiresAt: null }, now)).toBe(false);
    expect(keyNearExpiry({ status: 'retired', expiresAt: inDays(1) }, now)).toBe(false);
  });
});

describe('package page', () => {
  it('is packages/{id} under the repository, and only that', () => {
    expect(packageIdFromPath('packages/p-1')).toBe('p-1');
    expect(packageIdFromPath('packages')).toBeUndefined();
    expect(packageIdFromPath('packages/p-1/more')).toBeUndefined();
    expect(packageIdFromPath('overview')).toBeUndefined();
  });

  it('installs exactly this version with apt or dnf', () => {
    expect(packageInstallCommand('DEB', 'hello', '1:2.0-1')).toBe('sudo apt-get update && sudo apt-get install -y hello=1:2.0-1');
    expect(packageInstallCommand('RPM', 'hello', '2.0-1')).toBe('sudo dnf makecache && sudo dnf install -y hello-2.0-1');
  });
});
