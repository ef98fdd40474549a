#!/usr/bin/env node
// Regenerates proto/gen from the .proto files with buf (from npm) and ts-proto.
// `node proto/generate.mjs --check` regenerates into a temp dir and fails when the
// committed code is stale.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const protoDir = dirname(fileURLToPath(import.meta.url));
const buf = join(protoDir, '..', 'node_modules', '.bin', 'buf');
const check = process.argv.includes('--check');

const listFiles = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });

function generateInto(target) {
  const work = mkdtempSync(join(tmpdir(), 'packyard-proto-'));
  for (const dir of ["packyard", "grpc"]) cpSync(join(protoDir, dir), join(work, dir), { recursive: true });
  for (const file of ['buf.yaml', 'buf.gen.yaml']) cpSync(join(protoDir, file), join(work, file));
  const genYaml = readFileSync(join(work, 'buf.gen.yaml'), 'utf8').replace('../node_modules', join(protoDir, '..', 'node_modules'));
  execFileSync(buf, ['generate', '--template', genYaml, '-o', target], { cwd: work, stdio: 'inherit' });
  rmSync(work, { recursive: true, force: true });
}

if (check) {
  const out = mkdtempSync(join(tmpdir(), 'packyard-proto-check-'));
  generateInto(out);
  const fresh = join(out, 'gen');
  const committed = join(protoDir, 'gen');
  const names = new Set([...listFiles(fresh).map((f) => relative(fresh, f)), ...listFiles(committed).map((f) => relative(committed, f))]);
  const stale = [...names].filter((name) => {
    try {
      return readFileSync(join(fresh, name), 'utf8') !== readFileSync(join(committed, name), 'utf8');
    } catch {
      return true;
    }
  });
  rmSync(out, { recursive: true, force: true });
  if (stale.length) {
    console.error(`proto/gen is stale (run \`npm run proto\`): ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log('proto/gen is up to date');
} else {
  rmSync(join(protoDir, 'gen'), { recursive: true, force: true });
  generateInto(protoDir);
  console.log('generated proto/gen');
}
