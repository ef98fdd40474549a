import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

it('the committed TypeScript in proto/gen matches the .proto files', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['proto/generate.mjs', '--check']);
  expect(stdout).toContain('proto/gen is up to date');
}, 60_000);
