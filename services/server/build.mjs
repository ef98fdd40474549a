#!/usr/bin/env node
// Bundles the program's own TypeScript (every @packyard/* package) into dist/main.mjs (and
// what its edge workers run into dist/edge-worker.mjs) so
// that `npm start` loads one file instead of transpiling hundreds at start-up; npm
// dependencies stay external. dist/ sits at the same depth as services/<module>/src, so
// paths resolved from import.meta.url (the console, the install-script templates) still hold.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');

const options = {
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
};

/** what an edge worker runs (main.ts has delivery fork them from it): the edge's code and its dependencies only */
export const edgeWorkerBundle = {
  ...options,
  stdin: { contents: "import { edgeWorkerMain } from './edge-worker.ts';\nedgeWorkerMain();\n", resolveDir: join(here, 'src'), sourcefile: 'edge-worker-bundle.ts', loader: 'ts' },
  outfile: join(dist, 'edge-worker.mjs'),
};

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  mkdirSync(dist, { recursive: true });
  await Promise.all([build({ ...options, entryPoints: [join(here, 'src', 'main.ts')], outfile: join(dist, 'main.mjs') }), build(edgeWorkerBundle)]);
  const scripts = join(here, '..', 'delivery', 'src', 'install-scripts');
  for (const file of readdirSync(scripts).filter((f) => f.endsWith('.sh'))) copyFileSync(join(scripts, file), join(dist, file));
  console.log(`bundled services/server/dist/main.mjs and edge-worker.mjs in ${Math.round(performance.now() - started)} ms`);
}
