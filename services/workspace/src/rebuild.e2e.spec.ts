import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKYARD_BIN, startPackyard } from '@packyard/testing';
import { apiSession, registerUser } from '@packyard/testing/api-session';

const run = promisify(execFile);

// Read models are projections of each module's own log, the inbox of other modules'
// events included: rebuilt from scratch they answer exactly as before.
describe('rebuilding the workspace, repository and token read models', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-rebuild-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('answers the same lists after `packyard rebuild-projections`', async () => {
    const first = await startPackyard({ dataDir, timeoutMs: 60_000 });
    const user = await registerUser(first);
    const kept = (await user.call('POST', '/workspaces', { name: 'Kept', slug: `kept-${Date.now()}` })).body;
    const gone = (await user.call('POST', '/workspaces', { name: 'Gone', slug: `gone-${Date.now()}` })).body;
    const repo = (await user.call('POST', `/workspaces/${kept.id}/repos`, { name: 'apt' })).body;
    await user.call('POST', `/workspaces/${kept.id}/repos`, { name: 'rpm', kind: 'RPM' });
    await user.call('POST', `/repos/${repo.id}/tokens`, { name: 'server' });
    const accessToken = (await user.call('POST', '/tokens', { name: 'ci', scopes: ['read'] })).body;
    await user.call('DELETE', `/workspaces/${gone.id}`);
    await expect.poll(async () => (await user.call('GET', `/workspaces/${kept.id}`)).body.repositoryCount, { timeout: 15_000 }).toBe(2);
    const snapshot = async (session: ReturnType<typeof apiSession>) => ({
      workspaces: (await session.call('GET', '/workspaces')).body,
      repos: (await session.call('GET', '/repos')).body,
      repoTokens: (await session.call('GET', `/repos/${repo.id}/tokens`)).body,
      accessTokens: (await session.call('GET', '/tokens')).body,
    });
    const before = await snapshot(user);
    expect(before.workspaces.workspaces).toHaveLength(1);
    // the exit code is the program e2e's business (publishing may still be signing here)
    await first.stop();

    for (const target of ['workspace', 'repository', 'token']) {
      const { stdout } = await run(process.execPath, [PACKYARD_BIN, 'rebuild-projections', `--target=${target}`], { env: { ...process.env, DATA_DIR: dataDir } });
      expect(stdout).toContain('projection rebuilt');
    }

    const second = await startPackyard({ dataDir, timeoutMs: 60_000 });
    try {
      // the ID token is still valid: identity keeps its signing key in the data folder
      const again = apiSession(second, user.bearer);
      expect(await snapshot(again)).toEqual(before);
      expect((await again.as(accessToken.token).call('GET', '/workspaces')).status).toBe(200);
    } finally {
      await second.dispose();
    }
  });
});
