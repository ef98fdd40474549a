import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buildDeb, freshDebianRoot, runInRoot, type RunningPackyard } from '@packyard/testing';
import { type ApiSession, registerUser } from '@packyard/testing/api-session';
import { waitFor } from '@packyard/testing/wait-for';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, type ConsoleBrowser, openBrowser, screenshot, signIn, startPackyard, waitForPath } from './console-harness';

// The package page in Chromium against the single-node program: reached from the Packages
// table, it shows what the .deb says (description, dependencies, files), its versions,
// checksums, the install command for this version (copied as shown) and the downloads made by
// a real HTTP client of the edge, as a chart with a table behind it, split by token. The
// dashboard's Downloads card sums them and links to the package.

let program: RunningPackyard;
let browser: ConsoleBrowser;
let page: Page;
let user: ApiSession;
let work = '';
let workspaceId = '';
let repositoryId = '';
const ids: Record<string, string> = {};
const at = (path: string) => `${program.url}${path}`;
const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
const today = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date());

async function uploadViaApi(file: string): Promise<string> {
  const form = new FormData();
  form.append('distribution', 'debian/bookworm');
  form.append('file', new Blob([readFileSync(file)]), basename(file));
  const response = await fetch(at(`/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload?wait=published`), { method: 'POST', headers: { authorization: `Bearer ${user.bearer}` }, body: form });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** what apt does for one package: the Packages index, then the pool file it names */
async function downloadAsApt(token: string, version: string) {
  const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
  const base = at('/deb/acme/tools/debian');
  const index = await (await fetch(`${base}/dists/bookworm/main/binary-amd64/Packages`, { headers: auth })).text();
  const stanza = index.split('\n\n').find((entry) => entry.includes(`Version: ${version}\n`))!;
  const response = await fetch(`${base}/${/^Filename: (.+)$/m.exec(stanza)![1]}`, { headers: auth });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

beforeAll(async () => {
  buildConsole();
  work = mkdtempSync(join(tmpdir(), 'packyard-package-page-e2e-'));
  program = await startPackyard();
  user = await registerUser(program);
  workspaceId = (await user.call('POST', '/workspaces', { name: 'Acme', slug: 'acme', description: '' })).body.id;
  repositoryId = (await user.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'tools', kind: 'DEB' })).body.id;
  const spec = {
    name: 'hello-page',
    arch: 'all',
    depends: 'libc6 (>= 2.34), bash | dash',
    description: 'greets the world\n Prints a friendly greeting.\n .\n Then exits.',
    files: { 'usr/bin/hello-page': '#!/bin/sh\necho hello\n' },
  };
  ids.v1 = await uploadViaApi(await buildDeb({ ...spec, version: '1.0.0' }, work));
  ids.v2 = await uploadViaApi(await buildDeb({ ...spec, version: '1.1.0' }, work));
  const ci = (await user.call('POST', `/repos/${repositoryId}/tokens`, { name: 'ci-runner' })).body.token;
  const fleet = (await user.call('POST', `/repos/${repositoryId}/tokens`, { name: 'web-fleet' })).body.token;
  await downloadAsApt(ci, '1.1.0');
  await downloadAsApt(ci, '1.1.0');
  await downloadAsApt(fleet, '1.1.0');
  await waitFor('the downloads to be counted', async () => {
    const items = (await user.call('GET', `/workspaces/${workspaceId}/repos/${repositoryId}/packages`)).body.items as { id: string; downloads: number }[];
    return items.find((item) => item.id === ids.v2)?.downloads === 3 ? true : undefined;
  }, { timeoutMs: 30_000 });

  browser = await openBrowser({ width: 1280, height: 900 });
  page = browser.page;
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: program.url });
  await signIn(page, program.url, user.email);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await program?.dispose();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the package page', () => {
  it('(1280 px) opens from the Packages table and shows the package, its install command, dependencies, files, versions and checksums', async () => {
    await page.goto(at(`/workspaces/${workspaceId}/repos/${repositoryId}/packages`));
    await page.getByRole('link', { name: 'hello-page 1.1.0' }).click();
    await waitForPath(page, `/workspaces/${workspaceId}/repos/${repositoryId}/packages/${ids.v2}`);
    const view = page.getByLabel('Package hello-page 1.1.0');
    await view.waitFor();
    // the Packages tab stays the current one
    expect(await page.getByRole('tab', { name: 'Packages' }).getAttribute('aria-selected')).toBe('true');
    expect(await view.getByText('greets the world').count()).toBe(1);
    expect(await view.locator('.pk-description').innerText()).toBe('Prints a friendly greeting.\n\nThen exits.');

    const command = 'sudo apt-get update && sudo apt-get install -y hello-page=1.1.0';
    expect(await view.locator('.pk-code code').first().innerText()).toBe(command);
    await view.getByRole('button', { name: 'Copy install command' }).click();
    expect(await clipboard()).toBe(command);

    expect(await view.getByRole('list', { name: 'Depends' }).getByRole('listitem').allInnerTexts()).toEqual(['libc6 (>= 2.34)', 'bash | dash']);
    expect(await view.getByRole('list', { name: 'Files' }).getByRole('listitem').allInnerTexts()).toEqual(['/usr/bin/hello-page', '/usr/share/doc/hello-page/README']);
    const versions = view.getByRole('table', { name: 'Versions' });
    expect(await versions.getByRole('row').count()).toBe(3);
    const details = (await user.call('GET', `/workspaces/${workspaceId}/repos/${repositoryId}/packages/${ids.v2}`)).body;
    expect(await view.getByText(details.checksums.sha256).count()).toBe(1);
    expect(await view.getByText(details.checksums.md5).count()).toBe(1);
    await screenshot(page, 'package-page');

    // another version is one click away
    await versions.getByRole('link', { name: '1.0.0' }).click();
    await page.getByLabel('Package hello-page 1.0.0').waitFor();
    expect(await page.locator('.pk-code code').first().innerText()).toBe('sudo apt-get update && sudo apt-get install -y hello-page=1.0.0');
  });

  it('(1280 px) charts the downloads with a table behind it, per token on request', async () => {
    await page.goto(at(`/workspaces/${workspaceId}/repos/${repositoryId}/packages/${ids.v2}`));
    const chart = page.getByRole('figure', { name: 'Downloads per day, last 30 days' });
    await chart.waitFor();
    expect(await chart.getByRole('img').count()).toBe(1);
    expect(await chart.locator('.pk-chart__summary').innerText()).toBe(`3 downloads in the last 30 days; the most, 3, on ${today}.`);
    await chart.getByText('Show as table').click();
    const table = chart.getByRole('table');
    expect(await table.getByRole('row').count()).toBe(31);
    expect(await table.getByRole('row').last().locator('th, td').allTextContents()).toEqual([today, '3']);

    await page.getByLabel('Split').selectOption({ label: 'By token' });
    const byToken = page.getByRole('figure', { name: 'Downloads per day, last 30 days, by token' });
    await byToken.waitFor();
    expect((await byToken.getByRole('list', { name: 'Legend' }).getByRole('listitem').allInnerTexts()).map((text) => text.trim())).toEqual(['ci-runner', 'web-fleet']);
    await page.getByLabel('Time range').selectOption({ label: 'Last 48 hours' });
    await page.getByRole('figure', { name: 'Downloads per hour, last 48 hours, by token' }).waitFor();
    await screenshot(page, 'package-page-downloads');
  });

  it('(1280 px) the dashboard sums the downloads and leads to the package', async () => {
    await page.goto(at('/dashboard'));
    const chart = page.getByRole('figure', { name: 'Downloads per day, last 30 days' });
    await chart.waitFor();
    expect(await chart.locator('.pk-chart__summary').innerText()).toBe(`3 downloads in the last 30 days; the most, 3, on ${today}.`);
    const top = page.getByRole('list', { name: 'Top packages' });
    expect(await top.getByRole('listitem').first().innerText()).toContain('3 downloads');
    await screenshot(page, 'dashboard-downloads');
    await top.getByRole('link', { name: 'hello-page' }).click();
    await waitForPath(page, `/workspaces/${workspaceId}/repos/${repositoryId}/packages/${ids.v2}`);
    await page.getByLabel('Package hello-page 1.1.0').waitFor();
  });

  it('(1280 px) says so when the package does not exist', async () => {
    await page.goto(at(`/workspaces/${workspaceId}/repos/${repositoryId}/packages/no-such-package`));
    await page.getByRole('heading', { name: 'Package not found' }).waitFor();
    await page.getByRole('link', { name: 'All packages' }).click();
    await waitForPath(page, `/workspaces/${workspaceId}/repos/${repositoryId}/packages`);
  });

  it('(375 px) fits the screen, the dashboard card too', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(at(`/workspaces/${workspaceId}/repos/${repositoryId}/packages/${ids.v2}`));
    await page.getByRole('figure', { name: 'Downloads per day, last 30 days' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const code = await page.locator('.pk-code').first().boundingBox();
    expect(code!.x + code!.width).toBeLessThanOrEqual(375);
    await screenshot(page, 'package-page');
    await page.goto(at('/dashboard'));
    await page.getByRole('list', { name: 'Top packages' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'dashboard-downloads');
  });

  it('(375 px) the copied command installs exactly that version with apt in a Debian root (not the newest)', async () => {
    await page.goto(at(`/workspaces/${workspaceId}/repos/${repositoryId}/packages/${ids.v1}`));
    await page.getByRole('button', { name: 'Copy install command' }).click();
    const copied = await clipboard();
    expect(copied).toBe('sudo apt-get update && sudo apt-get install -y hello-page=1.0.0');
    const token = (await user.call('POST', `/repos/${repositoryId}/tokens`, { name: 'debian-root' })).body.token;
    const { oneLiner } = (await user.call('GET', `/repos/${repositoryId}/snippets?token=${token}`)).body.setupCommands;
    const root = await freshDebianRoot();
    try {
      const setup = await runInRoot(root, oneLiner);
      expect(setup.code, setup.stderr).toBe(0);
      const installed = await runInRoot(root, copied);
      expect(installed.code, installed.stderr).toBe(0);
      expect((await runInRoot(root, "dpkg-query -W -f '${Status} ${Version}' hello-page")).stdout).toBe('install ok installed 1.0.0');
      // and apt's download counts on the page of that version
      await page.goto(at(`/workspaces/${workspaceId}/repos/${repositoryId}/packages/${ids.v1}`));
      const summary = page.getByRole('figure', { name: 'Downloads per day, last 30 days' }).locator('.pk-chart__summary');
      await waitFor('the apt download to be counted', async () => {
        if ((await user.call('GET', `/workspaces/${workspaceId}/repos/${repositoryId}/packages/${ids.v1}`)).body.package.downloads === 1) return true;
        return undefined;
      }, { timeoutMs: 30_000 });
      await page.reload();
      expect(await summary.innerText()).toBe(`1 download in the last 30 days; the most, 1, on ${today}.`);
    } finally {
      await root.cleanup();
    }
  }, 240_000);
});
