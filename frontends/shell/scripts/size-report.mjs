// Prints an upper bound for the JavaScript of the first screen, gzipped: every script of
// the shell (its index plus all its async chunks: shared libraries and its own screens)
// plus each remote's entry and register() chunk, which the shell fetches before it renders.
// The browser test measures what a first visit really downloads.
import { readFile, readdir } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const frontends = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUDGET_BYTES = 300 * 1024;

const gzipSize = async (file) => gzipSync(await readFile(file), { level: 9 }).length;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

async function shellInitialScripts() {
  const dist = join(frontends, 'shell', 'dist');
  const html = await readFile(join(dist, 'index.html'), 'utf8');
  return [...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((match) => join(dist, match[1]));
}

/** The shell's async chunks: shared singletons, the federation runtime, its own screens. */
async function shellChunks() {
  const dir = join(frontends, 'shell', 'dist', 'static', 'js', 'async');
  const files = await readdir(dir).catch(() => []);
  return files.filter((file) => file.endsWith('.js')).map((file) => join(dir, file));
}

async function remoteFirstLoad(name) {
  const dist = join(frontends, name, 'dist');
  const manifest = JSON.parse(await readFile(join(dist, 'mf-manifest.json'), 'utf8').catch(() => 'null'));
  if (!manifest) {
    console.log(`        —   ${name}: no build yet, not counted`);
    return [];
  }
  const entry = join(dist, manifest.metaData.remoteEntry.path ?? '', manifest.metaData.remoteEntry.name);
  const register = manifest.exposes.find((expose) => expose.path === './register');
  const syncJs = register?.assets.js.sync ?? [];
  return [entry, ...syncJs.map((file) => join(dist, file))];
}

const rows = [];
for (const file of await shellInitialScripts()) rows.push(['shell (index.html)', file]);
for (const file of await shellChunks()) rows.push(['shell (async)', file]);
for (const name of ['workspaces', 'repository', 'tokens', 'settings']) {
  for (const file of await remoteFirstLoad(name)) rows.push([`${name} (entry + register)`, file]);
}
let total = 0;
for (const [owner, file] of rows) {
  const size = await gzipSize(file);
  total += size;
  console.log(`${kb(size).padStart(10)}  ${owner}  ${file.slice(frontends.length + 1)}`);
}
console.log(`first screen, at most: ${kb(total)} gzipped JavaScript (budget ${kb(BUDGET_BYTES)})`);
if (total > BUDGET_BYTES) {
  console.error('over budget');
  process.exitCode = 1;
}
