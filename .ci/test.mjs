#!/usr/bin/env node
// The README's test command: typecheck and lint, then every vitest project (unit, int, e2e),
// then one closing line "N passed, N failed, N skipped". Debian tools the tests use are
// installed first when this runs as root (.ci/debian-tools.mjs); without them, the tests
// that need them report themselves skipped with the reason.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianTools, unpackDebianTools } from './debian-tools.mjs';

const args = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;

ensureDebianTools();
unpackDebianTools();

const typecheck = spawnSync('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit'], { stdio: 'inherit' });
if (typecheck.status === 0) passed++;
else {
  failed++;
  console.error('typecheck failed');
}

const lint = spawnSync('npx', ['eslint', '.'], { stdio: 'inherit' });
if (lint.status === 0) passed++;
else {
  failed++;
  console.error('lint failed');
}

const report = join(mkdtempSync(join(tmpdir(), 'packyard-vitest-')), 'report.json');
const vitest = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args], {
  stdio: 'inherit',
  env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR },
});
if (existsSync(report)) {
  const result = JSON.parse(readFileSync(report, 'utf8'));
  passed += result.numPassedTests;
  failed += result.numFailedTests;
  skipped += result.numPendingTests + result.numTodoTests;
  // a file that failed without a failed test (it did not load, or its beforeAll threw and
  // its tests were skipped) is a failure all the same
  failed += result.testResults.filter((file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed')).length;
} else {
  failed++;
  console.error(`vitest exited with ${vitest.status} and wrote no report`);
}

console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 && vitest.status === 0 ? 0 : 1);
