#!/usr/bin/env node
// A second checkout of another commit, to run a benchmark on two versions alternately:
//
//   node loadtests/checkout-at.mjs <commit> <directory>
//   (cd <directory> && npx tsx loadtests/restart.bench.ts)   # that commit's code
//
// It borrows this checkout's npm packages (no install) but not its own: a worktree whose
// node_modules is a link to this one's resolves every @packyard/* package, and so all of
// the program but its entry file, to this checkout's sources, and a benchmark run there
// measures this checkout's code under the other's name (stop 36 compared a version with
// itself that way). The workspace links are copied as they are (relative, so they point
// into the new checkout), every other package is a link, and the bundle is built there.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [commit, target] = process.argv.slice(2);
if (!commit || !target || commit === '--help') {
  console.log('usage: node loadtests/checkout-at.mjs <commit> <directory>\n  a worktree of <commit> at <directory> with its own @packyard links and bundle, borrowing the npm packages of this checkout');
  process.exit(commit === '--help' ? 0 : 2);
}
const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const directory = resolve(target);
if (existsSync(directory)) {
  console.error(`${directory} exists; remove it (git worktree remove) or name another`);
  process.exit(2);
}

execFileSync('git', ['worktree', 'add', '--detach', directory, commit], { cwd: here, stdio: 'inherit' });
const modules = join(directory, 'node_modules');
mkdirSync(modules);
for (const entry of readdirSync(join(here, 'node_modules'))) {
  if (entry === '@packyard') continue;
  symlinkSync(join(here, 'node_modules', entry), join(modules, entry));
}
// relative links (../../services/<module>): copied, they name the new checkout's packages
cpSync(join(here, 'node_modules', '@packyard'), join(modules, '@packyard'), { recursive: true, verbatimSymlinks: true });
const delivery = readlinkSync(join(modules, '@packyard', 'delivery'));
if (!resolve(modules, '@packyard', delivery).startsWith(directory)) throw new Error(`@packyard/delivery links to ${delivery}, outside ${directory}`);
execFileSync(process.execPath, [join(directory, 'services/server/build.mjs')], { cwd: directory, stdio: 'inherit' });
console.log(`${directory}: ${commit} with its own @packyard packages and bundle`);
