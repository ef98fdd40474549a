#!/usr/bin/env node
// Completes package-lock.json with the other platforms' optional binaries
// (@nx/nx-darwin-arm64, @rspack/binding-win32-x64-msvc…) so that `npm ci` accepts it.
//
// Why: the registry these machines reach lags behind for those packages (it may know
// @bufbuild/buf-darwin-arm64 1.74.0 while @bufbuild/buf 1.75.0 pins 1.75.0), so
// `npm install` leaves them out of the lockfile and `npm ci` then refuses the lockfile
// ("Missing: … from lock file"). An entry carrying the package's os/cpu/libc is
// enough: npm skips a non-matching optional package without fetching it, and on the
// platform it was built for the public registry has it.
//
// Run after `npm install` changed the lockfile: node .ci/lock-other-platforms.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

function platformOf(name) {
  const out = execFileSync('npm', ['view', name, 'os', 'cpu', 'libc', '--json'], { encoding: 'utf8' }).trim();
  const parsed = out ? JSON.parse(out) : {};
  // `npm view` prints a bare array when only one of the fields is set (cpu: wasm32)
  return Array.isArray(parsed) ? { cpu: parsed } : parsed;
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] || packages[`${path}/${key}`]) continue;
    const platform = platformOf(name);
    if (!platform.os && !platform.cpu) {
      throw new Error(`${name} declares no os/cpu; npm ci would try to install it everywhere`);
    }
    packages[key] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...(platform.os ? { os: platform.os } : {}),
      ...(platform.cpu ? { cpu: platform.cpu } : {}),
      ...(platform.libc ? { libc: platform.libc } : {}),
    };
    added += 1;
    console.log(`+ ${name}@${version} ${JSON.stringify(platform)}`);
  }
}

lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${added} entries added`);
