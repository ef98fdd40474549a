// Prints what the first screen costs: the JavaScript index.html loads plus the remote
// entries and register() chunks the shell fetches before it renders, gzipped.
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

/** The shell's async chunks that bootstrap before the first screen (shared singletons, runtime). */
async function shellChunks() {
  const dir = join(frontends, 'shell', 'dist', 'static', 'js', 'async');
  const files = await readdir(dir).catch(() => []);
  return files.filter((file) => file.endsWith('.js')).map((file) => join(dir, file));
}

async function remoteFirstLoad(name) {
  const dist = join(frontends, name, 'dist');
  const manifest = JSON.parse(await readFile(join(dist, 'mf-manifest.json'), 'utf8').catch(() => 'null'));
  if (!manifest) return [];
  const entry = join(dist, manifest.metaData.remoteEntry.path ?? '', manifest.metaData.remoteEntry.name);
  const register = manifest.exposes.find((expose) => expose.path === './register');
  const syncJs = register?.assets.js.sync ?? [];
  return [entry, ...syncJs.map((file) => join(dist, file))];
}

const rows = [];
for (const file of await shellInitialScripts()) rows.push(['shell (index.html)', file]);
for (const name of ['workspaces', 'repository', 'tokens', 'settings']) {
  for (const file of await remoteFirstLoad(name)) rows.push([`${name} (entry + register)`, file]);
}
let total = 0;
for (const [owner, file] of rows) {
  const size = await gzipSize(file);
  total += size;
  console.log(`${kb(size).padStart(10)}  ${owner}  ${file.slice(frontends.length + 1)}`);
}
const lazyShell = await shellChunks();
let lazyTotal = 0;
for (const file of lazyShell) lazyTotal += await gzipSize(file);
console.log(`first screen: ${kb(total)} gzipped JavaScript (budget ${kb(BUDGET_BYTES)})`);
console.log(`shell async chunks (shared libraries + screens, loaded on demand): ${kb(lazyTotal)} gzipped`);
if (total > BUDGET_BYTES) {
  console.error('over budget');
  process.exitCode = 1;
}
