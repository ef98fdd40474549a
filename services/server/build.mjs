#!/usr/bin/env node
// Bundles the program's own TypeScript (every @packyard/* package) into dist/main.mjs so
// that `npm start` loads one file instead of transpiling hundreds at start-up; npm
// dependencies stay external. dist/ sits at the same depth as services/<module>/src, so
// paths resolved from import.meta.url (the console, the install-script templates) still hold.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
mkdirSync(dist, { recursive: true });

const started = performance.now();
await build({
  entryPoints: [join(here, 'src', 'main.ts')],
  outfile: join(dist, 'main.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [
    {
      name: 'external-npm-packages',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@packyard/') ? undefined : { path: args.path, external: true }));
      },
    },
  ],
});
const scripts = join(here, '..', 'delivery', 'src', 'install-scripts');
for (const file of readdirSync(scripts).filter((f) => f.endsWith('.sh'))) copyFileSync(join(scripts, file), join(dist, file));
console.log(`bundled services/server/dist/main.mjs in ${Math.round(performance.now() - started)} ms`);
