#!/usr/bin/env node
// The one list of Debian packages the tests and benchmarks use, and their installer:
// `.ci/run` and the README's `npm test` both start here. As root, whatever is missing is
// installed (one `apt-get update`, then `apt-get install`). Otherwise the missing packages
// are named, and the tests that need them report themselves skipped with the reason.
// Exits non-zero only when an install was attempted and failed.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

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

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(ensureDebianTools() ? 0 : 1);
