import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig, openModuleStores } from '@packyard/platform';
import { buildDeb, startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser } from '@packyard/testing/api-session';
import { scratchDir } from '@packyard/artifact/e2e/pipeline-fixture';

// Delivery's traffic events are recorded in its own event store before the outbox relay sends
// them, like every other event: after a download, the store holds FilesServed and
// PackageDownloaded as integration events (a bus outage can then only delay them).

let packyard: RunningPackyard;

beforeAll(async () => {
  packyard = await startPackyard();
});
afterAll(() => packyard?.dispose());

it('records served files and downloads in delivery’s store as integration events', async () => {
  const session = await registerUser(packyard);
  const workspace = (await session.call('POST', '/workspaces', { name: 'Traffic', slug: 'traffic', description: '' })).body;
  const repository = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'tools', kind: 'DEB' })).body;
  const file = await buildDeb({ name: 'traffic-hello', version: '1.0', arch: 'all' }, await scratchDir());
  const form = new FormData();
  form.set('distribution', 'debian/bookworm');
  form.set('file', new Blob([await readFile(file)]), basename(file));
  const uploaded = await fetch(`${packyard.url}/api/v1/workspaces/${workspace.id}/repos/${repository.id}/upload?wait=published`, { method: 'POST', headers: { authorization: `Bearer ${session.bearer}` }, body: form });
  expect(uploaded.status).toBe(201);
  const { token } = (await session.call('POST', `/repos/${repository.id}/tokens`, { name: 'machine' })).body;
  const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
  const base = `${packyard.url}/deb/traffic/tools/debian`;
  const packages = await (await fetch(`${base}/dists/bookworm/${repository.component || 'main'}/binary-amd64/Packages`, { headers: auth })).text();
  const download = await fetch(`${base}/${/^Filename: (.+)$/m.exec(packages)![1]}`, { headers: auth });
  expect(download.status).toBe(200);
  await download.arrayBuffer();
  // the download counts once the relayed PackageDownloaded reached artifact
  for (let tries = 0; (await session.call('GET', `/workspaces/${workspace.id}/repos/${repository.id}/packages`)).body.items[0].downloads !== 1; tries++) {
    if (tries > 80) throw new Error('the download was never counted');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await packyard.stop();

  const stores = await openModuleStores(loadConfig({ DATA_DIR: packyard.dataDir }), 'delivery');
  try {
    const traffic = (await stores.events.readAll(0)).filter((event) => event.stream === `traffic-${repository.id}`);
    expect(new Set(traffic.map((event) => event.type))).toEqual(new Set(['FilesServed', 'PackageDownloaded']));
    expect(traffic.every((event) => event.integration)).toBe(true);
  } finally {
    await stores.events.close?.();
    await stores.readModels.close();
  }
});
