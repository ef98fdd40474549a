import type { RunningPackyard } from '@packyard/testing';
import { type ApiSession, registerUser } from '@packyard/testing/api-session';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerNextConfirm, buildConsole, type ConsoleBrowser, openBrowser, screenshot, signIn, startPackyard } from './console-harness';

// Deleted workspaces and repositories in Chromium against the single-node program: the toast
// right after a deletion offers Undo, and the "Recently deleted" list restores them with the
// time left before they are purged; a restoration the server refuses (the name was taken
// since) says why.

let program: RunningPackyard;
let browser: ConsoleBrowser;
let page: Page;
let user: ApiSession;
const at = (path: string) => `${program.url}${path}`;
const card = (text: string) => page.getByRole('article').filter({ hasText: text });
const recentlyDeleted = (what: string) => page.getByRole('list', { name: `Recently deleted ${what}` });
const toast = () => page.getByRole('status').filter({ hasText: 'deleted.' });

beforeAll(async () => {
  buildConsole();
  program = await startPackyard();
  user = await registerUser(program);
  browser = await openBrowser({ width: 1280, height: 900 });
  page = browser.page;
  await signIn(page, program.url, user.email);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await program?.dispose();
});

describe('restoring what was deleted', () => {
  it('(1280 px) undoes a workspace deletion from the toast, and restores one from Recently deleted with its repositories', async () => {
    const workspace = (await user.call('POST', '/workspaces', { name: 'Undone', slug: 'undone' })).body;
    await user.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt' });
    await user.call('POST', '/workspaces', { name: 'Later', slug: 'later' });
    await page.goto(at('/workspaces'));
    await card('/undone').waitFor();

    // no confirmation (spec §5): the toast offers the way back instead
    await card('/undone').getByRole('button', { name: 'Delete' }).click();
    await card('/undone').waitFor({ state: 'detached' });
    await toast().getByText('Workspace “Undone” deleted.').waitFor();
    await screenshot(page, 'workspace-deleted-toast');
    await toast().getByRole('button', { name: 'Undo' }).click();
    await card('/undone').waitFor();
    expect(await card('/undone').innerText()).toMatch(/Repositories\s*1/);
    expect(await toast().count()).toBe(0);

    await card('/later').getByRole('button', { name: 'Delete' }).click();
    await toast().getByRole('button', { name: 'Dismiss' }).click();
    const later = recentlyDeleted('workspaces').getByRole('listitem').filter({ hasText: 'Later' });
    await later.waitFor();
    expect(await later.innerText()).toContain('/later · 0 repositories');
    // the default grace period is 7 days; a moment has passed since the deletion
    expect(await later.innerText()).toContain('6 days left');
    await screenshot(page, 'workspaces-recently-deleted');
    await later.getByRole('button', { name: 'Restore Later' }).click();
    await card('/later').waitFor();
    await recentlyDeleted('workspaces').waitFor({ state: 'detached' });
  });

  it('(1280 px) undoes a repository deletion, and says why a restoration is refused when the name was taken since', async () => {
    const workspace = (await user.call('POST', '/workspaces', { name: 'Repos', slug: 'repos' })).body;
    await user.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'tools' });
    await page.goto(at(`/workspaces/${workspace.id}/repos`));
    await card('tools').waitFor();

    // the spec's confirmation stays; the deletion can be undone all the same
    const confirmed = answerNextConfirm(page, true);
    await card('tools').getByRole('button', { name: 'Delete' }).click();
    expect(await confirmed).toBe('Are you sure you want to delete "tools"? This action cannot be undone.');
    await card('tools').waitFor({ state: 'detached' });
    await toast().getByText('Repository “tools” deleted.').waitFor();
    await screenshot(page, 'repository-deleted-toast');
    await toast().getByRole('button', { name: 'Undo' }).click();
    await card('tools').waitFor();

    const again = answerNextConfirm(page, true);
    await card('tools').getByRole('button', { name: 'Delete' }).click();
    await again;
    await card('tools').waitFor({ state: 'detached' });
    await toast().getByRole('button', { name: 'Dismiss' }).click();
    const deleted = recentlyDeleted('repositories').getByRole('listitem').filter({ hasText: 'tools' });
    await deleted.waitFor();
    expect(await deleted.innerText()).toContain('DEB · 0 packages');
    expect(await deleted.innerText()).toContain('days left');
    // a new repository takes the name meanwhile: the old one cannot come back under it
    await user.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'tools' });
    await page.reload();
    await card('tools').waitFor();
    await deleted.getByRole('button', { name: 'Restore tools' }).click();
    await page.getByRole('alert').getByText('A repository named "tools" has been created in this workspace since this one was deleted; delete it to restore this one').waitFor();
    await screenshot(page, 'repositories-recently-deleted');
  });

  it('(375 px) the toast and the Recently deleted list fit a phone', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await user.call('POST', '/workspaces', { name: 'Phone workspace with a long name', slug: 'phone' });
    await page.goto(at('/workspaces'));
    await card('/phone').getByRole('button', { name: 'Delete' }).click();
    const undo = toast().getByRole('button', { name: 'Undo' });
    await undo.waitFor();
    const box = await toast().boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    await recentlyDeleted('workspaces').getByRole('listitem').filter({ hasText: 'Phone workspace' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'workspaces-recently-deleted');
    await undo.click();
    await card('/phone').waitFor();
    const restore = recentlyDeleted('workspaces');
    await restore.waitFor({ state: 'detached' });
  });
});
