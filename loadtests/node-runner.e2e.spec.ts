import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { REPO_ROOT, startPackyard } from '@packyard/testing';

it('the Node runner drives the API journey against the single-node program and its checks pass', async () => {
  const packyard = await startPackyard();
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [`${REPO_ROOT}/loadtests/run.mjs`, '--scenario', 'api', '--shape', 'smoke', '--base-url', packyard.url]);
    expect(stdout).toMatch(/✓ the workspace is listed: \d+\/\d+/);
    expect(stdout).toMatch(/✓ packages page answers: \d+\/\d+/);
    expect(stdout).toContain('PASS checks rate');
  } finally {
    await packyard.dispose();
  }
}, 120_000);
