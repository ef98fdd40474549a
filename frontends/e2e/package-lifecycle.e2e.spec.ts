import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buildDeb, type RunningPackyard } from '@packyard/testing';
import { type ApiSession, registerUser } from '@packyard/testing/api-session';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerNextConfirm, buildConsole, type ConsoleBrowser, openBrowser, screenshot, signIn, startPackyard, waitForPath } from './console-harness';

// Package lifecycle screens in Chromium against the single-node program. The Packages tab's
// Promote action: the dialog offers the workspace's other repositories of the same kind, moves
// or copies the package without a re-upload, and says so; the server's refusal shows in the
// dialog. The Settings tab's retention policy: validated, saved, previewed and applied. The
// workspace's audit log shows those actions with their actor, filters, pages and exports.

let program: RunningPackyard;
let browser: ConsoleBrowser;
let page: Page;
let user: ApiSession;
let workspaceId = '';
let work = '';
const repositories: Record<string, string> = {};
const at = (path: string) => `${program.url}${path}`;
const packagesTab = (name: string) => at(`/workspaces/${workspaceId}/repos/${repositories[name]}/packages`);
const settingsTab = (name: string) => at(`/workspaces/${workspaceId}/repos/${repositories[name]}/settings`);
const versionsIn = async (name: string) => ((await user.call('GET', `/workspaces/${workspaceId}/repos/${repositories[name]}/packages`)).body.items as { version: string }[]).map((p) => p.version).sort();
const row = (name: string) => page.getByRole('table', { name: 'Packages' }).getByRole('row').filter({ hasText: name });

async function uploadViaApi(repository: string, file: string) {
  const form = new FormData();
  form.append('distribution', 'debian/bookworm');
  form.append('file', new Blob([readFileSync(file)]), basename(file));
  const response = await fetch(at(`/api/v1/workspaces/${workspaceId}/repos/${repositories[repository]}/upload?wait=published`), {
    method: 'POST',
    headers: { authorization: `Bearer ${user.bearer}` },
    body: form,
  });
  expect(response.status).toBe(201);
}

beforeAll(async () => {
  buildConsole();
  work = mkdtempSync(join(tmpdir(), 'packyard-promotion-e2e-'));
  program = await startPackyard();
  user = await registerUser(program);
  workspaceId = (await user.call('POST', '/workspaces', { name: 'Acme', slug: 'acme', description: '' })).body.id;
  for (const [name, kind] of [['staging', 'DEB'], ['production', 'DEB'], ['testing', 'DEB'], ['yum', 'RPM'], ['nightly', 'DEB']]) {
    repositories[name] = (await user.call('POST', `/workspaces/${workspaceId}/repos`, { name, kind })).body.id;
  }
  await uploadViaApi('staging', await buildDeb({ name: 'hello-release', version: '1.0.0', arch: 'all' }, work));
  await uploadViaApi('staging', await buildDeb({ name: 'hello-mobile', version: '2.0.0', arch: 'all' }, work));
  for (const version of ['1.0', '1.1', '1.2']) await uploadViaApi('nightly', await buildDeb({ name: 'nightly', version, arch: 'all' }, work));

  browser = await openBrowser({ width: 1280, height: 900 });
  page = browser.page;
  await signIn(page, program.url, user.email);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await program?.dispose();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('promoting a package from the Packages tab', () => {
  it('(1280 px) moves the package to the chosen repository of the same kind and says so', async () => {
    await page.goto(packagesTab('staging'));
    await row('hello-release').getByRole('button', { name: 'Promote hello-release 1.0.0' }).click();
    const dialog = page.getByRole('dialog', { name: 'Promote hello-release 1.0.0' });
    await dialog.waitFor();
    const target = dialog.getByLabel('Target repository');
    // the other DEB repositories only: not the source, not the RPM one
    expect(await target.locator('option').allInnerTexts()).toEqual(['production', 'testing', 'nightly']);
    await target.selectOption({ label: 'production' });
    await screenshot(page, 'package-promote-dialog');
    await dialog.getByRole('button', { name: 'Promote', exact: true }).click();

    await page.getByRole('status').filter({ hasText: 'Promoted hello-release 1.0.0 to production.' }).waitFor();
    await row('hello-release').waitFor({ state: 'detached' });
    await page.goto(packagesTab('production'));
    await row('hello-release').waitFor();
    expect(await row('hello-release').innerText()).toContain('1.0.0');
  });

  it('(375 px) copies with "Keep", and shows the conflict when the target has the version', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(packagesTab('staging'));
    await row('hello-mobile').getByRole('button', { name: 'Promote hello-mobile 2.0.0' }).click();
    const dialog = page.getByRole('dialog', { name: 'Promote hello-mobile 2.0.0' });
    await dialog.waitFor();
    const box = await dialog.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    await dialog.getByLabel('Target repository').selectOption({ label: 'testing' });
    await dialog.getByLabel('Keep it in staging').check();
    await screenshot(page, 'package-promote-dialog');
    await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Copied hello-mobile 2.0.0 to testing.' }).waitFor();
    // copied, not moved: it stays here
    await row('hello-mobile').waitFor();

    await row('hello-mobile').getByRole('button', { name: 'Promote hello-mobile 2.0.0' }).click();
    await dialog.getByLabel('Target repository').selectOption({ label: 'testing' });
    await dialog.getByRole('button', { name: 'Promote', exact: true }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Package hello-mobile 2.0.0 (all) already exists in debian/bookworm' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await row('hello-mobile').waitFor();
  });
});

describe('retention in the Settings tab', () => {
  it('(1280 px) validates, saves, previews and applies the policy', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(settingsTab('nightly'));
    const form = page.getByRole('form', { name: 'Retention' });
    const keep = form.getByLabel('Versions to keep');
    await keep.waitFor();
    expect(await keep.inputValue()).toBe('0');
    expect(await form.getByLabel('Never delete a version downloaded in the last (days)').inputValue()).toBe('0');
    expect(await form.getByRole('button', { name: 'Preview deletions' }).isDisabled()).toBe(true);

    await keep.fill('two');
    await form.getByText('Versions to keep must be a whole number from 0 to 1000').waitFor();
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await keep.fill('2');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('status').filter({ hasText: 'Retention policy saved.' }).waitFor();

    await form.getByRole('button', { name: 'Preview deletions' }).click();
    const wouldGo = form.getByRole('list', { name: 'Would be deleted' });
    await wouldGo.waitFor();
    expect(await wouldGo.locator('li').allInnerTexts()).toEqual(['nightly 1.0 (all, debian/bookworm)']);
    await screenshot(page, 'repository-settings-retention');
    expect(await versionsIn('nightly')).toEqual(['1.0', '1.1', '1.2']);

    const confirmation = answerNextConfirm(page, true);
    await form.getByRole('button', { name: 'Apply now' }).click();
    expect(await confirmation).toBe('Delete the versions the retention policy lets go from nightly? This action cannot be undone.');
    await form.getByRole('list', { name: 'Deleted' }).waitFor();
    expect(await versionsIn('nightly')).toEqual(['1.1', '1.2']);
  });

  it('(375 px) shows the saved policy and fits the screen', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(settingsTab('nightly'));
    const keep = page.getByRole('form', { name: 'Retention' }).getByLabel('Versions to keep');
    await keep.waitFor();
    expect(await keep.inputValue()).toBe('2');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'repository-settings-retention');
  });
});

describe('the workspace audit log', () => {
  it('(1280 px) lists the promotion and the retention deletion with actor and address, filters and exports', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(at(`/workspaces/${workspaceId}/repos`));
    await page.getByRole('link', { name: 'Audit log' }).click();
    await waitForPath(page, `/workspaces/${workspaceId}/audit`);
    const table = page.getByRole('table', { name: 'Audit log' });
    const promoted = table.getByRole('row').filter({ hasText: 'hello-release 1.0.0 (all, debian/bookworm) in production from staging' });
    await promoted.waitFor();
    expect(await promoted.innerText()).toMatch(new RegExp(`Package promoted[\\s\\S]*${user.email.replace(/[.+]/g, '\\$&')}[\\s\\S]*127\\.0\\.0\\.1`));
    await screenshot(page, 'workspace-audit-log');

    await page.getByLabel('Action').selectOption({ label: 'Package deleted' });
    await table.getByRole('row').filter({ hasText: 'Package uploaded' }).first().waitFor({ state: 'detached' });
    const deleted = table.getByRole('row').filter({ hasText: 'nightly 1.0 (all, debian/bookworm) in nightly' });
    await deleted.waitFor();
    expect(await deleted.innerText()).toContain('retention');
    expect(await table.getByRole('row').count()).toBe(2);

    await page.getByPlaceholder('Actor (email or token)...').fill('nobody-like-this');
    await page.getByText('Nothing matches these filters.').waitFor();
    await page.getByPlaceholder('Actor (email or token)...').fill('');
    await page.getByLabel('Action').selectOption({ label: 'All actions' });
    await promoted.waitFor();

    const total = (await user.call('GET', `/workspaces/${workspaceId}/audit`)).body.total as number;
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON lines' }).click();
    const file = await (await downloading).path();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { action: string });
    expect(lines).toHaveLength(total);
    expect(lines.map((line) => line.action)).toContain('package.promoted');
  });

  it('(375 px) fits the screen', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(at(`/workspaces/${workspaceId}/audit`));
    await page.getByRole('table', { name: 'Audit log' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    // each entry is a card: what was done gets the whole width, not a word per line
    const what = await page.getByRole('table', { name: 'Audit log' }).getByRole('cell').filter({ hasText: 'from staging' }).first().boundingBox();
    expect(what!.width).toBeGreaterThan(250);
    await screenshot(page, 'workspace-audit-log');
  });
});
