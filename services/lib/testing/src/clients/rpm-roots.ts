import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../program';
import { runChecked, runCommand, type CommandResult } from './run-command';

// RPM clients on this Debian host: dnf and zypper both work against an empty install root,
// so a test gets a real client with its own rpm database, caches and repository files.

export interface RpmRepository {
  /** Repository id: the [section] of the .repo file and the zypper alias. */
  id: string;
  /** `{repositoryUrl}/{distro}/{version}`, the directory holding repodata/. */
  baseUrl: string;
  /** Armored public key (gpgkey=). */
  publicKeyUrl: string;
  /** Sent as the HTTP Basic user name (password empty, or the token again for zypper). */
  token: string;
}

export interface RpmRoot {
  path: string;
  cleanup(): Promise<void>;
}

async function emptyRoot(prefix: string): Promise<RpmRoot> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/**
 * The .repo file a user would write by hand. skip_if_unavailable=False matters: without it
 * Debian's dnf skips a repository whose signature fails and still exits 0.
 */
export function dnfRepoFile(repository: RpmRepository): string {
  return [
    `[${repository.id}]`,
    `name=${repository.id}`,
    `baseurl=${repository.baseUrl}`,
    'enabled=1',
    'repo_gpgcheck=1',
    'gpgcheck=1',
    `gpgkey=${repository.publicKeyUrl}`,
    `username=${repository.token}`,
    'password=',
    'skip_if_unavailable=False',
    '',
  ].join('\n');
}

/** os-release fields of the systems the roots stand in for (install-rpm.sh reads them). */
export const ROCKY_9_OS_RELEASE = { ID: 'rocky', ID_LIKE: 'rhel centos fedora', VERSION_ID: '9.4', NAME: 'Rocky Linux' };
export const OPENSUSE_LEAP_15_5_OS_RELEASE = { ID: 'opensuse-leap', ID_LIKE: 'suse opensuse', VERSION_ID: '15.5', NAME: 'openSUSE Leap' };

async function writeOsRelease(root: RpmRoot, fields: Record<string, string>): Promise<void> {
  await mkdir(join(root.path, 'etc'), { recursive: true });
  const lines = Object.entries(fields).map(([name, value]) => `${name}="${value}"`);
  await writeFile(join(root.path, 'etc/os-release'), `${lines.join('\n')}\n`);
}

/**
 * An empty dnf install root that looks like Rocky Linux 9. With `repository`, its .repo
 * file is written into the root's yum.repos.d; without, an install script will.
 */
export async function dnfRoot(repository?: RpmRepository): Promise<RpmRoot> {
  const root = await emptyRoot('packyard-dnf-');
  await writeOsRelease(root, ROCKY_9_OS_RELEASE);
  await mkdir(join(root.path, 'etc/yum.repos.d'), { recursive: true });
  if (repository) await writeFile(join(root.path, 'etc/yum.repos.d', `${repository.id}.repo`), dnfRepoFile(repository), { mode: 0o600 });
  return root;
}

/** dnf's options for the root: its own repositories only */
const dnfRootOptions = (root: RpmRoot) => [`--installroot=${root.path}`, '--releasever=9', `--setopt=reposdir=${join(root.path, 'etc/yum.repos.d')}`, '-y'];

/** `dnf -y <args>` against the root, reading repositories from the root only. */
export function dnf(root: RpmRoot, args: readonly string[]): Promise<CommandResult> {
  return runCommand('dnf', [...dnfRootOptions(root), ...args]);
}

/**
 * dnf-plugins-core as .ci/debian-tools.mjs unpacks it: Debian's package Breaks zypper, so it
 * is not installed, and dnf loads its download plugin from here.
 */
const UNPACKED_DNF_PLUGINS = join(REPO_ROOT, 'node_modules/.cache/packyard-debian/dnf-plugins-core/usr/lib/python3/dist-packages');
const DOWNLOAD_PLUGIN = join(UNPACKED_DNF_PLUGINS, 'dnf-plugins/download.py');
export const dnfDownloadUnavailable = (): string | undefined =>
  existsSync(DOWNLOAD_PLUGIN) ? undefined : "dnf's download plugin is not unpacked (node .ci/debian-tools.mjs unpacks dnf-plugins-core, which Breaks zypper if installed)";

/** `dnf -y download <args>` against the root, with dnf-plugins-core's download plugin and none of its others */
export async function dnfDownload(root: RpmRoot, args: readonly string[]): Promise<CommandResult> {
  const plugins = join(root.path, 'packyard-dnf-plugins');
  await mkdir(plugins, { recursive: true });
  await copyFile(DOWNLOAD_PLUGIN, join(plugins, 'download.py'));
  return runCommand('dnf', [...dnfRootOptions(root), `--setopt=pluginpath=${plugins}`, 'download', ...args], { env: { ...process.env, PYTHONPATH: UNPACKED_DNF_PLUGINS } });
}

/** `zypper --root <root> --non-interactive <args>`. */
export function zypper(root: RpmRoot, args: readonly string[]): Promise<CommandResult> {
  return runCommand('zypper', ['--root', root.path, '--non-interactive', ...args]);
}

/**
 * An empty zypper root that looks like openSUSE Leap 15.5, with an rpm database. With
 * `repository`, it is added as a user would (credentials in credentials.d; the key named by
 * gpgkey= is imported on first refresh with --gpg-auto-import-keys, and repomd.xml must
 * still verify against it); without, an install script will add it.
 */
export async function zypperRoot(repository?: RpmRepository): Promise<RpmRoot> {
  const root = await emptyRoot('packyard-zypper-');
  await writeOsRelease(root, OPENSUSE_LEAP_15_5_OS_RELEASE);
  await runChecked('rpm', ['--root', root.path, '--initdb']);
  if (!repository) return root;
  const credentials = join(root.path, 'etc/zypp/credentials.d');
  await mkdir(credentials, { recursive: true });
  // zypper sends no credentials while the password is empty, so the token doubles as password.
  await writeFile(join(credentials, repository.id), `username=${repository.token}\npassword=${repository.token}\n`, { mode: 0o600 });
  await mkdir(join(root.path, 'etc/zypp/repos.d'), { recursive: true });
  await writeFile(
    join(root.path, 'etc/zypp/repos.d', `${repository.id}.repo`),
    [
      `[${repository.id}]`,
      `name=${repository.id}`,
      `baseurl=${repository.baseUrl}?credentials=${repository.id}`,
      'enabled=1',
      'autorefresh=1',
      'type=rpm-md',
      'repo_gpgcheck=1',
      'pkg_gpgcheck=1',
      `gpgkey=${repository.publicKeyUrl}`,
      '',
    ].join('\n'),
  );
  return root;
}

/**
 * Runs install-rpm.sh as the console's one-liner does (`curl -fsSL <url> | sudo bash -s --
 * <token>`), aimed at `root` through PACKYARD_INSTALL_ROOT since this host is not an RPM
 * system: the script reads the root's os-release and runs dnf/zypper against the root.
 */
export function installWithRpmScript(root: RpmRoot, scriptUrl: string, token: string): Promise<CommandResult> {
  return runCommand('sh', ['-c', 'curl -fsSL "$1" | bash -s -- "$2"', 'sh', scriptUrl, token], {
    env: { ...process.env, PACKYARD_INSTALL_ROOT: root.path },
  });
}
