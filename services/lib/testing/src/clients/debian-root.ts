import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { homedir, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findDebianMirror } from './apt-sources';
import { runChecked, runCommand, type CommandResult } from './run-command';

// A real apt (2.6, bookworm) in a chroot: the closest thing to a customer's machine we can
// have without containers. The chroot shares the host's network namespace, so apt inside it
// reaches servers listening on 127.0.0.1. Nothing is mounted into it, so removing the
// directory is all the cleanup there is.

const SUITE = 'bookworm';
const PACKAGES = ['ca-certificates', 'curl', 'gnupg', 'sudo'];
/** Bumped whenever the build below changes, so stale cached images are not reused. */
const IMAGE_VERSION = 2;

export function cacheDir(): string {
  return process.env.PACKYARD_CACHE_DIR ?? join(homedir(), '.cache', 'packyard');
}

async function hostAptSourceFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  if (existsSync('/etc/apt/sources.list')) files['sources.list'] = await readFile('/etc/apt/sources.list', 'utf8');
  const directory = '/etc/apt/sources.list.d';
  for (const name of existsSync(directory) ? (await readdir(directory)).sort() : []) {
    files[name] = await readFile(join(directory, name), 'utf8');
  }
  return files;
}

/** The Debian mirror the host's apt uses for bookworm, or PACKYARD_DEBIAN_MIRROR. */
export async function hostDebianMirror(): Promise<string> {
  const mirror = process.env.PACKYARD_DEBIAN_MIRROR ?? findDebianMirror(await hostAptSourceFiles(), SUITE);
  if (!mirror) throw new Error(`no ${SUITE} source in /etc/apt; set PACKYARD_DEBIAN_MIRROR`);
  return mirror;
}

// Runs under flock so parallel test files build the image once; the tarball appears by
// rename, so a half-built image is never seen. The image's sources.list is emptied: a test
// root should only know the repositories the test adds, so an `apt-get update` failure is
// always about them. Documentation is dropped (and kept out of later installs): it is 40% of
// the files, and every test pays for each file when it unpacks its own copy.
const BUILD_SCRIPT = String.raw`
set -eu
[ -f "$TARBALL" ] && exit 0
work=$(mktemp -d "$CACHE_DIR/debootstrap.XXXXXX")
cleanup() {
  for mount in "$work"/root/proc "$work"/root/sys "$work"/root/dev/pts; do
    mountpoint -q "$mount" 2>/dev/null && umount -l "$mount"
  done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$work/root" "$MIRROR" >"$work/log" 2>&1 || { tail -n 30 "$work/log" >&2; exit 1; }
: > "$work/root/etc/apt/sources.list"
rm -rf "$work"/root/var/cache/apt/archives/*.deb "$work"/root/var/lib/apt/lists/*
for docs in doc man locale info; do
  rm -rf "$work/root/usr/share/$docs"/*
  echo "path-exclude /usr/share/$docs/*" >>"$work/root/etc/dpkg/dpkg.cfg.d/packyard-no-docs"
done
tar --zstd -C "$work/root" -cf "$work/root.tar.zst" .
mv "$work/root.tar.zst" "$TARBALL"
`;

/**
 * Path of a cached tarball of a minimal bookworm root (with ca-certificates, curl, gnupg
 * and sudo). Builds it with debootstrap the first time (about 70 s), then reuses it.
 */
export async function debianRoot(): Promise<string> {
  const directory = cacheDir();
  const tarball = join(directory, `debian-${SUITE}-minbase-${IMAGE_VERSION}.tar.zst`);
  if (existsSync(tarball)) return tarball;
  await mkdir(directory, { recursive: true });
  await runChecked('flock', [join(directory, `debian-${SUITE}.lock`), 'sh', '-c', BUILD_SCRIPT], {
    env: { ...process.env, TARBALL: tarball, CACHE_DIR: directory, SUITE, PACKAGES: PACKAGES.join(','), MIRROR: await hostDebianMirror() },
  });
  return tarball;
}

export interface DebianRoot {
  path: string;
  cleanup(): Promise<void>;
}

/** A private, writable copy of the cached bookworm root; call cleanup() when done. */
export async function freshDebianRoot(): Promise<DebianRoot> {
  const tarball = await debianRoot();
  const path = await mkdtemp(join(tmpdir(), 'packyard-debian-'));
  await runChecked('tar', ['--zstd', '-xf', tarball, '-C', path]);
  // The chroot shares the host's hostname; sudo warns on every call if it cannot resolve it.
  await appendFile(join(path, 'etc/hosts'), `127.0.1.1\t${hostname()}\n`);
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

const CHROOT_ENV = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  LANG: 'C.UTF-8',
  DEBIAN_FRONTEND: 'noninteractive',
};

/**
 * Runs `script` with /bin/sh inside the root, as root. `args` become "$1", "$2"... so
 * values never need quoting into the script.
 */
export function runInRoot(root: DebianRoot, script: string, args: readonly string[] = []): Promise<CommandResult> {
  return runCommand('chroot', [root.path, '/bin/sh', '-c', script, 'sh', ...args], { env: CHROOT_ENV });
}

/** `apt-get <args>` inside the root. */
export function aptGet(root: DebianRoot, args: readonly string[]): Promise<CommandResult> {
  return runInRoot(root, 'exec apt-get "$@"', args);
}

/**
 * Runs an install script exactly as the console's one-liner does:
 * `curl -fsSL "<scriptUrl>" | sudo bash -s -- <token>`.
 */
export function installWithScript(root: DebianRoot, scriptUrl: string, token: string): Promise<CommandResult> {
  return runInRoot(root, 'curl -fsSL "$1" | sudo bash -s -- "$2"', [scriptUrl, token]);
}
