import { gzipSync } from 'node:zlib';
import type { RunningPackyard } from '@packyard/testing';
import type { Dialog, Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerNextConfirm, buildConsole, delayNext, REPOSITORY_REMOTE_BUILT, type ConsoleBrowser, openBrowser, pause, screenshot, startPackyard, waitForPath } from './console-harness';

const FIRST_SCREEN_BUDGET_BYTES = 300 * 1024;
const PASSWORD = 'correct-horse-1';

let program: RunningPackyard;
let browser: ConsoleBrowser;
let page: Page;
const email = `walker-${Date.now()}@example.com`;
const at = (path: string) => `${program.url}${path}`;

const text = (value: string | RegExp) => page.getByText(value).first();
async function visible(value: string | RegExp) {
  await text(value).waitFor({ state: 'visible', timeout: 10_000 });
}
const button = (name: string | RegExp) => page.getByRole('button', { name, exact: typeof name === 'string' });
const navLink = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });

// Production builds of the shell and the remotes, as the program serves them.
beforeAll(buildConsole);

describe('console walk-through as a new user (1280 px)', () => {
  beforeAll(async () => {
    program = await startPackyard();
    browser = await openBrowser({ width: 1280, height: 800 });
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await program?.dispose();
  });

  it('loads the first screen with less than 300 KB of gzipped JavaScript, spinner first', async () => {
    const scripts: Promise<number>[] = [];
    const measure = (response: Response) => {
      if (response.url().endsWith('.js')) scripts.push(response.body().then((body) => gzipSync(body).length));
    };
    page.on('response', measure);
    // Hold the remotes back a moment so the initial check is observable.
    await delayNext(page, '**/remotes/*/mf-manifest.json', 600, 4);
    await page.goto(at('/workspaces'));
    await page.getByText('Checking your session').waitFor({ state: 'attached' });
    // The guard remembers /workspaces and sends the anonymous visitor to sign in.
    await waitForPath(page, '/login');
    await visible('Sign in to Packyard');
    await page.waitForLoadState('networkidle');
    page.off('response', measure);
    const total = (await Promise.all(scripts)).reduce((sum, size) => sum + size, 0);
    console.log(`first screen: ${(total / 1024).toFixed(1)} KB gzipped JavaScript in ${scripts.length} files`);
    expect(total).toBeLessThan(FIRST_SCREEN_BUDGET_BYTES);
    await screenshot(page, 'login');
  });

  it('validates account creation and shows the busy text', async () => {
    await button('Create an account').click();
    await visible('Create your account');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('abcdef');
    await page.getByLabel('Confirm password').fill('abcdeg');
    await button('Create account').click();
    await visible('Passwords do not match');
    await page.getByLabel('Password', { exact: true }).fill('abc');
    await page.getByLabel('Confirm password').fill('abc');
    await button('Create account').click();
    await visible('Password must be at least 6 characters long');
    await screenshot(page, 'create-account');

    await delayNext(page, '**/api/v1/auth/register', 700);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await button('Create account').click();
    await visible('Creating account...');
    // Registration signs in and returns to the remembered page.
    await waitForPath(page, '/workspaces');
    await visible('No workspaces yet');
  });

  it('sends a signed-in visitor away from /login', async () => {
    await page.goto(at('/login'));
    await waitForPath(page, '/dashboard');
    await visible('Dashboard');
  });

  it('shows the dashboard with its cards and empty state', async () => {
    for (const label of ['Workspaces', 'Repositories', 'Storage Used', 'Bandwidth Used']) await visible(label);
    await visible('No workspaces yet');
    expect(await navLink('Dashboard').getAttribute('aria-current')).toBe('page');
    expect(await navLink('Workspaces').getAttribute('aria-current')).toBeNull();
    await screenshot(page, 'dashboard-empty');
  });

  it('creates workspaces with a derived slug, resets the form, deletes without confirmation', async () => {
    await navLink('Workspaces').click();
    await waitForPath(page, '/workspaces');
    await button('New Workspace').click();
    await page.getByLabel('Name', { exact: true }).fill('   ');
    await button('Create Workspace').click();
    await pause(300);
    await visible('No workspaces yet');

    await page.getByLabel('Name', { exact: true }).fill('  Acme & Co. -- Builds!  ');
    expect(await page.getByLabel('Slug').inputValue()).toBe('acme-co-builds');
    await visible('Only lowercase letters, numbers, and hyphens allowed');
    await page.getByLabel('Description (optional)').fill('Build tooling for Acme');
    await screenshot(page, 'workspaces-new');
    await button('Create Workspace').click();
    await visible('/acme-co-builds');
    expect(await page.getByLabel('Slug').count()).toBe(0);

    await button('New Workspace').click();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('');
    await page.getByLabel('Name', { exact: true }).fill('Throwaway');
    await button('Create Workspace').click();
    await visible('/throwaway');

    let confirmed = false;
    const unexpectedConfirm = (dialog: Dialog) => {
      confirmed = true;
      void dialog.dismiss();
    };
    page.on('dialog', unexpectedConfirm);
    const throwaway = page.getByRole('article').filter({ hasText: '/throwaway' });
    await throwaway.getByRole('button', { name: 'Delete' }).click();
    // gone from the grid (it waits under Recently deleted, restorable)
    await throwaway.waitFor({ state: 'detached' });
    page.off('dialog', unexpectedConfirm);
    expect(confirmed).toBe(false);
    await visible('View Repositories');
    await screenshot(page, 'workspaces');
  });

  it('manages the repositories of a workspace', async () => {
    await page.getByRole('article').filter({ hasText: '/acme-co-builds' }).getByRole('link', { name: 'View Repositories' }).click();
    await waitForPath(page, /^\/workspaces\/[^/]+\/repos$/);
    await visible('Acme & Co. -- Builds! Repositories');
    await visible('/acme-co-builds');
    await visible('No repositories yet');
    expect(await navLink('Workspaces').getAttribute('aria-current')).toBe('page');

    await button('New Repository').click();
    const dialog = page.getByRole('dialog', { name: 'New Repository' });
    expect(await dialog.getByLabel('Codename').inputValue()).toBe('stable');
    // what the codename does is said where it is chosen
    expect(await dialog.getByText('The install instructions use it when a distribution has this codename').count()).toBe(1);
    expect(await dialog.getByLabel('Component').inputValue()).toBe('main');
    expect(await dialog.getByRole('button', { name: 'Create Repository' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Repository Name').fill('backend-tools');
    await screenshot(page, 'repository-new');
    await dialog.getByRole('button', { name: 'Create Repository' }).click();
    await visible('backend-tools');

    await button('New Repository').click();
    expect(await dialog.getByLabel('Repository Name').inputValue()).toBe('');
    await dialog.getByLabel('Repository Name').fill('infra');
    await dialog.getByLabel('Repository Type').selectOption('RPM');
    expect(await dialog.getByLabel('Codename').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Create Repository' }).click();
    await page.getByRole('article').filter({ hasText: 'infra' }).waitFor();
    await visible('RPM');
    await screenshot(page, 'repositories');

    await page.getByLabel('Search repositories').fill('TOOLS');
    await page.getByRole('article').filter({ hasText: 'infra' }).waitFor({ state: 'detached' });
    expect(await page.getByRole('article').count()).toBe(1);
    await page.getByLabel('Search repositories').fill('zzz');
    await visible('No repositories found');
    await page.getByLabel('Search repositories').fill('');

    const infra = page.getByRole('article').filter({ hasText: 'infra' });
    const dismissed = answerNextConfirm(page, false);
    await infra.getByRole('button', { name: 'Delete' }).click();
    expect(await dismissed).toBe('Are you sure you want to delete "infra"? This action cannot be undone.');
    await pause(300);
    expect(await infra.count()).toBe(1);
    const accepted = answerNextConfirm(page, true);
    await infra.getByRole('button', { name: 'Delete' }).click();
    await accepted;
    await infra.waitFor({ state: 'detached' });
  });

  it('links to the repository page, which shows a retryable panel while its remote is absent', async () => {
    await page.route('**/remotes/repository/**', (route) => route.fulfill({ status: 404, body: 'absent' }));
    await page.reload();
    await page.getByRole('link', { name: 'backend-tools' }).click();
    await waitForPath(page, /^\/workspaces\/[^/]+\/repos\/[^/]+$/);
    await visible('This part of the console failed to load');
    await screenshot(page, 'repository-remote-failed');
    await page.unroute('**/remotes/repository/**');
    await button('Retry').click();
    await pause(1500);
    // Retrying loads the remote again: its screen takes over if it is built, else the panel stays.
    expect(await text('This part of the console failed to load').isVisible()).toBe(!REPOSITORY_REMOTE_BUILT);
    await page.goto(at('/dashboard'));
  });

  it('fills the dashboard from the API', async () => {
    await visible('Acme & Co. -- Builds!');
    await visible('/acme-co-builds');
    await visible(/\d+% of /);
    await screenshot(page, 'dashboard');
  });

  it('creates and deletes account access tokens', async () => {
    await navLink('Access Tokens').click();
    await visible('No access tokens yet');
    await button('Create Access Token').click();
    const dialog = page.getByRole('dialog', { name: 'Create Access Token' });
    expect(await dialog.getByLabel('read').isChecked()).toBe(true);
    const repositoryChoice = dialog.getByLabel('Repository (optional)');
    expect(await repositoryChoice.inputValue()).toBe('');
    expect(await repositoryChoice.locator('option:checked').innerText()).toBe('All repositories');
    await dialog.getByLabel('Token Name').fill('ci-deployment');
    await dialog.getByLabel('read').uncheck();
    expect(await dialog.getByRole('button', { name: 'Create Token' }).isDisabled()).toBe(true);
    await dialog.getByLabel('read').check();
    await dialog.getByLabel('publish').check();
    await screenshot(page, 'token-new');
    await dialog.getByRole('button', { name: 'Create Token' }).click();
    const created = page.getByRole('dialog', { name: 'Token Created Successfully' });
    await created.waitFor();
    await visible("You won't be able to see it again");
    expect((await created.locator('code').innerText()).length).toBeGreaterThan(10);
    await screenshot(page, 'token-created');
    await created.getByRole('button', { name: 'Done' }).click();
    await visible('ci-deployment');
    await visible('All repositories');
    await screenshot(page, 'tokens');

    const dismissed = answerNextConfirm(page, true);
    await page.getByRole('list', { name: 'Access tokens' }).getByRole('button', { name: 'Delete' }).click();
    expect(await dismissed).toBe('Are you sure you want to delete token "ci-deployment"? This action cannot be undone.');
    await visible('No access tokens yet');
  });

  it('shows the five settings tabs with their defaults', async () => {
    await navLink('Settings').click();
    await visible('Email cannot be changed. Contact support if needed.');
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe(email);
    expect(await page.getByLabel('Email', { exact: true }).getAttribute('readonly')).not.toBeNull();
    const timezones = await page.getByLabel('Timezone').locator('option').allTextContents();
    expect(timezones).toEqual(['UTC', 'America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles', 'Europe/London', 'Europe/Paris', 'Asia/Tokyo']);
    expect(await page.getByLabel('Theme').locator('option').allTextContents()).toEqual(['system', 'light', 'dark']);
    await page.getByLabel('Display Name').fill('Ada');
    await page.getByLabel('Timezone').selectOption('Europe/Paris');
    await button('Save Changes').click();
    await visible('Saved');
    await screenshot(page, 'settings-profile');
    await page.reload();
    await page.getByLabel('Display Name').waitFor();
    expect(await page.getByLabel('Display Name').inputValue()).toBe('Ada');
    expect(await page.getByLabel('Timezone').inputValue()).toBe('Europe/Paris');

    await page.getByRole('tab', { name: 'Security' }).click();
    await visible('Disabled');
    await visible('Never');
    for (const name of ['Change Password', 'View Sessions', 'Enable']) await button(name).waitFor();
    await screenshot(page, 'settings-security');

    await page.getByRole('tab', { name: 'Notifications' }).click();
    expect(await page.getByLabel('Email notifications').isChecked()).toBe(true);
    expect(await page.getByLabel('Push notifications').isChecked()).toBe(false);
    expect(await page.getByLabel('Weekly digest').isChecked()).toBe(true);
    await button('Save Preferences').waitFor();
    await screenshot(page, 'settings-notifications');

    await page.getByRole('tab', { name: 'API Keys' }).click();
    await button('Create New Key').waitFor();
    await screenshot(page, 'settings-api-keys');
    await page.getByRole('tab', { name: 'Danger Zone' }).click();
    await button('Delete Account').waitFor();
    await button('Export Data').waitFor();
    await screenshot(page, 'settings-danger-zone');
  });

  it('shows the billing placeholder', async () => {
    await navLink('Billing').click();
    await visible('Billing');
    await visible('Subscription and usage billing');
    expect(await navLink('Billing').getAttribute('aria-current')).toBe('page');
    await screenshot(page, 'billing');
  });

  it('links to the API reference, rendered from the OpenAPI document with nothing fetched from elsewhere', async () => {
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    const origins = new Set<string>();
    const listener = (request: Request) => origins.add(new URL(request.url()).origin);
    browser.context.on('request', listener);
    const [reference] = await Promise.all([browser.context.waitForEvent('page'), page.getByRole('link', { name: 'API reference' }).click()]);
    await reference.getByText('Packyard API').first().waitFor({ timeout: 15_000 });
    // an operation of the console's own API, documented with its route
    await reference.getByText('/api/v1/workspaces').first().waitFor();
    expect(await reference.title()).toBe('Packyard API reference');
    expect(new URL(reference.url()).pathname).toBe('/api/docs');
    await reference.close();
    browser.context.off('request', listener);
    expect([...origins]).toEqual([program.url]);
  });

  it('sends the browser to /login when the API answers 401', async () => {
    await page.evaluate(() => {
      const stored = JSON.parse(localStorage.getItem('packyard.session') ?? '{}');
      localStorage.setItem('packyard.session', JSON.stringify({ ...stored, idToken: 'not-a-valid-token', expiresAt: Date.now() + 3_600_000 }));
    });
    await page.goto(at('/workspaces'));
    await waitForPath(page, '/login');
    await visible('Sign in to Packyard');
  });

  it('shows a failed sign-in, signs in with the busy text, then signs out', async () => {
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill('wrong-password');
    await button('Sign in').click();
    await page.getByRole('alert').waitFor();
    expect((await page.getByRole('alert').innerText()).length).toBeGreaterThan(0);

    await delayNext(page, '**/api/v1/auth/login', 700);
    await page.getByLabel('Password').fill(PASSWORD);
    await button('Sign in').click();
    await visible('Signing in...');
    await waitForPath(page, '/workspaces');

    await button('Sign out').click();
    await waitForPath(page, '/login');
    expect(await page.evaluate(() => localStorage.getItem('packyard.session'))).toBeNull();
    await page.goto(at('/tokens'));
    await waitForPath(page, '/login');
  });

  // starting Google sign-in on a server that has it configured: settings.e2e.spec.ts
  it('says Google sign-in is not set up on this server, and accepts the tokens a Google sign-in returns', async () => {
    await page.goto(at('/settings'));
    await waitForPath(page, '/login');
    await visible('Google sign-in is not set up on this server. Sign in with your email and password.');
    expect(await button('Sign in with Google').isDisabled()).toBe(true);

    await page.goto(at(`/login?error=${encodeURIComponent('Access denied by Google')}`));
    await visible('Access denied by Google');

    // The server's redirect back carries the tokens in the fragment.
    const answer = await (
      await fetch(at('/api/v1/auth/login'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) })
    ).json();
    await page.goto(at(`/login/callback#idToken=${answer.idToken}&refreshToken=${answer.refreshToken}&expiresIn=${answer.expiresIn}&returnTo=%2Fsettings`));
    await waitForPath(page, '/settings');
    await visible('Email cannot be changed. Contact support if needed.');
  });

  it('polls the system status', async () => {
    await page.goto(at('/status'));
    await visible('All systems operational');
    await screenshot(page, 'status');
    await page.route('**/api/actuator/health', (route) => route.abort());
    await page.reload();
    await visible('Checking system status...');
    await visible('System appears to be offline');
    await page.getByRole('link', { name: 'Back to sign in' }).waitFor();
    await page.unroute('**/api/actuator/health');
  });
});

describe('console on a 375 px screen', () => {
  let phone: ConsoleBrowser;
  beforeAll(async () => {
    program = await startPackyard();
    phone = await openBrowser({ width: 375, height: 812 });
    page = phone.page;
  });
  afterAll(async () => {
    await phone?.close();
    await program?.dispose();
  });

  it('walks every screen through the slide-in menu', async () => {
    await page.goto(at('/status'));
    await visible('All systems operational');
    await screenshot(page, 'status');
    await page.goto(at('/login'));
    await visible('Sign in to Packyard');
    await screenshot(page, 'login');
    await button('Create an account').click();
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await screenshot(page, 'create-account');
    await button('Create account').click();
    await waitForPath(page, '/dashboard');
    await visible('No workspaces yet');
    await screenshot(page, 'dashboard-empty');

    // The sidebar is hidden until the menu button slides it in.
    expect(await navLink('Workspaces').isVisible()).toBe(false);
    await button('Open menu').click();
    await navLink('Workspaces').waitFor({ state: 'visible' });
    await screenshot(page, 'menu');
    await page.keyboard.press('Escape');
    await navLink('Workspaces').waitFor({ state: 'hidden' });
    await button('Open menu').click();
    await navLink('Workspaces').click();
    await waitForPath(page, '/workspaces');
    await pause(300);
    expect(await navLink('Workspaces').isVisible()).toBe(false);

    await button('New Workspace').click();
    await page.getByLabel('Name', { exact: true }).fill('Mobile Team');
    await screenshot(page, 'workspaces-new');
    await button('Create Workspace').click();
    await visible('/mobile-team');
    await screenshot(page, 'workspaces');
    await page.getByRole('link', { name: 'View Repositories' }).click();
    await button('New Repository').click();
    await page.getByLabel('Repository Name').fill('apt-tools');
    await screenshot(page, 'repository-new');
    await page.getByRole('dialog').getByRole('button', { name: 'Create Repository' }).click();
    await visible('apt-tools');
    await screenshot(page, 'repositories');
    await page.route('**/remotes/repository/**', (route) => route.fulfill({ status: 404, body: 'absent' }));
    await page.reload();
    await page.getByRole('link', { name: 'apt-tools' }).click();
    await visible('This part of the console failed to load');
    await screenshot(page, 'repository-remote-failed');
    await page.unroute('**/remotes/repository/**');
    await page.goto(at('/dashboard'));
    await visible('/mobile-team');
    await screenshot(page, 'dashboard');

    await page.goto(at('/tokens'));
    await button('Create Access Token').click();
    await page.getByLabel('Token Name').fill('phone');
    await screenshot(page, 'token-new');
    await page.getByRole('dialog').getByRole('button', { name: 'Create Token' }).click();
    await page.getByRole('dialog', { name: 'Token Created Successfully' }).waitFor();
    await screenshot(page, 'token-created');
    await button('Done').click();
    await screenshot(page, 'tokens');

    await page.goto(at('/settings'));
    await visible('Email cannot be changed. Contact support if needed.');
    await screenshot(page, 'settings-profile');
    await page.getByRole('tab', { name: 'Security' }).click();
    await visible('Never');
    await screenshot(page, 'settings-security');
    await page.getByRole('tab', { name: 'Notifications' }).click();
    await button('Save Preferences').waitFor();
    await screenshot(page, 'settings-notifications');
    await page.getByRole('tab', { name: 'API Keys' }).click();
    await button('Create New Key').waitFor();
    await screenshot(page, 'settings-api-keys');
    await page.getByRole('tab', { name: 'Danger Zone' }).click();
    await button('Delete Account').waitFor();
    await screenshot(page, 'settings-danger-zone');
    await page.goto(at('/billing'));
    await visible('Subscription and usage billing');
    await screenshot(page, 'billing');
    // Nothing overflows sideways on a phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });
});
