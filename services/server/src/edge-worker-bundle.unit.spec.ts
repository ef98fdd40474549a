import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { edgeWorkerBundle } from '../build.mjs';

describe('the edge worker bundle', () => {
  it('loads none of the packages only other modules use: every worker loads its imports anew at each start, beside the main process', async () => {
    const { metafile } = await build({ ...edgeWorkerBundle, write: false, metafile: true, sourcemap: false, logLevel: 'silent' });
    const packages = new Set(Object.values(metafile.outputs).flatMap((output) => output.imports.filter((imported) => imported.external && imported.kind === 'import-statement').map((imported) => imported.path)));
    // the API server, the parsers and compressors of uploads and publishing, and OpenPGP (loaded when a key file must be made)
    for (const unused of ['fastify', 'lzma-native', 'tar-stream', 'fzstd', 'openpgp']) expect(packages, unused).not.toContain(unused);
    expect(packages).toContain('better-sqlite3');
  });
});
