#!/usr/bin/env node
// The one list of Debian packages the tests and benchmarks use, and their installer:
// `.ci/run` and the README's `npm test` both start here. As root, whatever is missing is
// installed (one `apt-get update`, then `apt-get install`). Otherwise the missing packages
// are named, and the tests that need them report themselves skipped with the reason.
// Exits non-zero only when an install was attempted and failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** package → what needs it */
export const DEBIAN_TOOLS = {
  chromium: 'console browser tests (playwright-core drives it)',
  dnf: 'RPM client tests (dnf --installroot)',
  rpm: 'RPM client tests and rpm -K',
  zypper: 'RPM client tests (zypper)',
  debootstrap: 'APT client tests (a Debian root)',
  'apt-utils': 'golden APT indices (apt-ftparchive) and benchmarks',
  'createrepo-c': 'golden YUM metadata and benchmarks',
  reprepro: 'the publish benchmark',
  aptly: 'the publish benchmark',
  nginx: 'the delivery benchmark',
  wrk: 'the delivery benchmark',
  zstd: '.deb members compressed with zstd',
  'xz-utils': '.deb members compressed with xz',
  gnupg: 'signature checks',
  gpgv: 'signature checks (what apt runs)',
  'dpkg-dev': 'reference .deb files and source packages (dpkg-deb, dpkg-source, dpkg-scanpackages)',
  'ca-certificates': 'HTTPS to the Debian archive',
  curl: 'the upload benchmark',
  radosgw: 'the S3 adapter on Ceph radosgw (services/lib/testing/src/servers)',
  'ceph-mon': 'the single-node Ceph cluster under radosgw',
  'ceph-osd': 'the single-node Ceph cluster under radosgw',
  'ceph-common': 'the ceph CLI that sets up that cluster',
  'librdkafka-dev': "the Kafka adapter on librdkafka's mock cluster",
  gcc: 'builds the mock Kafka broker',
};

/**
 * package → what needs it: packages that cannot be installed beside the ones above, so their
 * files are unpacked (apt-get download, dpkg-deb -x; no root needed) under UNPACKED_DIR/<package>
 * and used from there. dnf-plugins-core declares Breaks: zypper.
 */
export const UNPACKED_DEBIAN_TOOLS = {
  'dnf-plugins-core': 'dnf download --source in the source RPM test (dnf runs with its download plugin from here)',
};
export const UNPACKED_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.cache', 'packyard-debian');

/** fetches and unpacks what is not unpacked yet; returns false when that failed */
export function unpackDebianTools({ log = console.log } = {}) {
  let ok = true;
  for (const pkg of Object.keys(UNPACKED_DEBIAN_TOOLS).filter((name) => !existsSync(join(UNPACKED_DIR, name)))) {
    const work = mkdtempSync(join(tmpdir(), 'packyard-unpack-'));
    try {
      const fetched = spawnSync('apt-get', ['download', '-qq', pkg], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
      const deb = readdirSync(work).find((name) => name.endsWith('.deb'));
      if (fetched.status !== 0 || !deb || spawnSync('dpkg-deb', ['-x', deb, 'root'], { cwd: work, stdio: 'inherit' }).status !== 0) {
        log(`could not fetch and unpack ${pkg}; the tests that need it are skipped`);
        ok = false;
        continue;
      }
      mkdirSync(UNPACKED_DIR, { recursive: true });
      renameSync(join(work, 'root'), join(UNPACKED_DIR, pkg));
      log(`unpacked ${pkg} into ${join(UNPACKED_DIR, pkg)}`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return ok;
}

const installed = (pkg) =>
  spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' }).stdout?.includes('install ok installed') ?? false;

/** the packages of DEBIAN_TOOLS not installed here (all of them on a machine without dpkg) */
export function missingDebianTools() {
  return Object.keys(DEBIAN_TOOLS).filter((pkg) => !installed(pkg));
}

/** installs what is missing when it can; returns false when an install failed */
export function ensureDebianTools({ log = console.log } = {}) {
  const missing = missingDebianTools();
  if (missing.length === 0) return true;
  const listing = missing.map((pkg) => `  ${pkg}: ${DEBIAN_TOOLS[pkg]}`).join('\n');
  if (process.getuid?.() !== 0) {
    log(`Debian packages missing (not root, so not installing them; the tests that need them are skipped):\n${listing}\n` + `  as root: node .ci/debian-tools.mjs`);
    return true;
  }
  log(`installing Debian packages:\n${listing}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', ...missing]]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (result.status !== 0) {
      log(`apt-get ${args[0]} failed (${result.error?.message ?? `exit ${result.status}`}); the tests that need ${missing.join(', ')} are skipped`);
      return false;
    }
  }
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit([ensureDebianTools(), unpackDebianTools()].every(Boolean) ? 0 : 1);
