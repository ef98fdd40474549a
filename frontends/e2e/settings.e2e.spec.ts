import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningPackyard } from '@packyard/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '@packyard/identity/two-factor/totp';
import { buildConsole, type ConsoleBrowser, openBrowser, screenshot, startPackyard, waitForPath } from './console-harness';

const PASSWORD = 'correct-horse-1';
const NEW_PASSWORD = 'battery-staple-2';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1';

let program: RunningPackyard;

/** an auth call as another device would make it */
async function auth(path: string, body: unknown, userAgent = FIREFOX) {
  const response = await fetch(`${program.url}/api/v1/auth/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { idToken: string; refreshToken: string } };
}

function screen(page: Page) {
  const visible = (value: string | RegExp) => page.getByText(value).first().waitFor({ state: 'visible', timeout: 10_000 });
  const button = (name: string | RegExp) => page.getByRole('button', { name, exact: typeof name === 'string' });
  const dialog = (name: string) => page.getByRole('dialog', { name });
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  async function signIn(email: string, password: string) {
    await page.goto(`${program.url}/login`);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(password);
    await button('Sign in').click();
    await waitForPath(page, '/dashboard');
  }
  async function openSettingsTab(name: string) {
    await page.goto(`${program.url}/settings`);
    await page.getByRole('tab', { name }).click();
  }
  return { visible, button, dialog, theme, signIn, openSettingsTab };
}

// Production builds of the shell and the remotes, as the program serves them.
beforeAll(buildConsole);

describe('settings: password, sessions, API keys, export, theme, two-factor and account deletion (1280 px)', () => {
  let browser: ConsoleBrowser;
  let page: Page;
  let ui: ReturnType<typeof screen>;
  const email = `settings-${Date.now()}@example.com`;

  beforeAll(async () => {
    program = await startPackyard();
    expect((await auth('register', { email, password: PASSWORD })).status).toBe(201);
    browser = await openBrowser({ width: 1280, height: 800 });
    page = browser.page;
    ui = screen(page);
    await ui.signIn(email, PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await program?.dispose();
  });

  it('changes the password with the current one: checks, errors, and this session carries on while others end', async () => {
    const elsewhere = (await auth('login', { email, password: PASSWORD })).body;
    await ui.openSettingsTab('Security');
    await ui.visible('Never');
    await ui.button('Change Password').click();
    const dialog = ui.dialog('Change Password');
    await dialog.waitFor();
    await screenshot(page, 'settings-change-password');

    await dialog.getByLabel('Current password').fill(PASSWORD);
    await dialog.getByLabel('New password', { exact: true }).fill('abcdef');
    await dialog.getByLabel('Confirm new password').fill('abcdeg');
    await dialog.getByRole('button', { name: 'Change Password' }).click();
    expect(await dialog.getByRole('alert').innerText()).toBe('Passwords do not match');
    await dialog.getByLabel('New password', { exact: true }).fill('abc');
    await dialog.getByLabel('Confirm new password').fill('abc');
    await dialog.getByRole('button', { name: 'Change Password' }).click();
    expect(await dialog.getByRole('alert').innerText()).toBe('Password must be at least 6 characters long');

    await dialog.getByLabel('Current password').fill('not-my-password');
    await dialog.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await dialog.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await dialog.getByRole('button', { name: 'Change Password' }).click();
    await dialog.getByRole('alert').getByText('Current password is incorrect').waitFor();
    // a wrong current password is a form error, never a trip to /login
    expect(new URL(page.url()).pathname).toBe('/settings');

    await dialog.getByLabel('Current password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Change Password' }).click();
    await ui.visible('Password changed. Your other sessions were signed out.');
    await dialog.waitFor({ state: 'hidden' });
    // the security settings are fetched again: the last change is now a date
    await page.getByText('Never').waitFor({ state: 'detached' });

    expect((await auth('refresh', { refreshToken: elsewhere.refreshToken })).status).toBe(401);
    expect((await auth('login', { email, password: PASSWORD })).status).toBe(401);
    expect((await auth('login', { email, password: NEW_PASSWORD })).status).toBe(200);
    // this browser holds the new session: a refresh at the next start succeeds and stays signed in
    await page.evaluate(() => {
      const stored = JSON.parse(localStorage.getItem('packyard.session') ?? '{}');
      localStorage.setItem('packyard.session', JSON.stringify({ ...stored, expiresAt: Date.now() }));
    });
    await page.reload();
    await page.getByRole('tab', { name: 'Security' }).click();
    await ui.button('View Sessions').waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
  });

  it('lists the signed-in sessions, marks this one, signs out one and then all others', async () => {
    const laptop = (await auth('login', { email, password: NEW_PASSWORD }, FIREFOX)).body;
    const phone = (await auth('login', { email, password: NEW_PASSWORD }, IPHONE)).body;
    await ui.openSettingsTab('Security');
    await ui.button('View Sessions').click();
    const dialog = ui.dialog('Signed-in Sessions');
    const rows = dialog.getByRole('list', { name: 'Sessions' }).getByRole('listitem');
    await rows.first().waitFor();
    // the API's own sign-in above (after the password change) counts too: four sessions
    const rowFor = (device: string) => rows.filter({ hasText: device });
    await rowFor('Safari on iOS').waitFor();
    expect(await rowFor('Firefox on Linux').count()).toBe(2);
    const mine = rows.filter({ hasText: 'This device' });
    expect(await mine.count()).toBe(1);
    expect(await mine.innerText()).toContain('Chrome on Linux');
    expect(await mine.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await screenshot(page, 'settings-sessions');

    await rowFor('Safari on iOS').getByRole('button', { name: 'Sign out' }).click();
    await rowFor('Safari on iOS').waitFor({ state: 'detached' });
    expect((await auth('refresh', { refreshToken: phone.refreshToken }, IPHONE)).status).toBe(401);
    expect((await auth('refresh', { refreshToken: laptop.refreshToken })).status).toBe(200);

    await dialog.getByRole('button', { name: 'Sign out all other sessions' }).click();
    await rowFor('Firefox on Linux').first().waitFor({ state: 'detached' });
    expect(await rows.count()).toBe(1);
    expect(await dialog.getByRole('button', { name: 'Sign out all other sessions' }).isDisabled()).toBe(true);
    const laptopNow = await auth('refresh', { refreshToken: laptop.refreshToken });
    expect(laptopNow.status).toBe(401);
    await dialog.getByRole('button', { name: 'Done' }).click();
  });

  it('creates an API key, shows its value once, and the key works on the API', async () => {
    await ui.openSettingsTab('API Keys');
    await ui.visible('No API keys yet');
    await ui.button('Create Your First API Key').click();
    const dialog = ui.dialog('Create API Key');
    await dialog.waitFor();
    expect(await dialog.getByRole('button', { name: 'Create Key' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Key Name').fill('laptop');
    expect(await dialog.getByLabel('read').isChecked()).toBe(true);
    await dialog.getByLabel('publish').check();
    await screenshot(page, 'settings-api-key-new');
    await dialog.getByRole('button', { name: 'Create Key' }).click();

    const shown = ui.dialog('API Key Created');
    await shown.waitFor();
    await shown.getByText("Make sure to copy your token now. You won't be able to see it again!").waitFor();
    const key = (await shown.locator('code').innerText()).trim();
    expect(key).toMatch(/^pyd_uk_.{40,}$/);
    await screenshot(page, 'settings-api-key-created');
    await shown.getByRole('button', { name: 'Done' }).click();

    const listed = page.getByRole('list', { name: 'API keys' }).getByRole('listitem');
    await listed.first().waitFor();
    expect(await listed.count()).toBe(1);
    expect(await listed.innerText()).toMatch(/laptop[\s\S]*read[\s\S]*publish/);
    expect(await page.content()).not.toContain(key);

    const withKey = await fetch(`${program.url}/api/v1/workspaces`, { headers: { authorization: `Bearer ${key}` } });
    expect(withKey.status).toBe(200);
    await ui.button('Create New Key').click();
    await ui.dialog('Create API Key').getByLabel('Key Name').fill('   ');
    expect(await ui.dialog('Create API Key').getByRole('button', { name: 'Create Key' }).isDisabled()).toBe(true);
    await ui.dialog('Create API Key').getByRole('button', { name: 'Cancel' }).click();
  });

  it('exports the account as a JSON download of its workspaces and repositories', async () => {
    const bearer = (await auth('login', { email, password: NEW_PASSWORD })).body.idToken;
    const call = (path: string, body: unknown) =>
      fetch(`${program.url}/api/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((response) => response.json());
    const workspace = await call('/workspaces', { name: 'Exported', slug: `exported-${Date.now()}` });
    await call(`/workspaces/${workspace.id}/repos`, { name: 'apt-exported' });

    await ui.openSettingsTab('Danger Zone');
    const downloading = page.waitForEvent('download');
    await ui.button('Export Data').click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^packyard-export-\d{4}-\d{2}-\d{2}\.json$/);
    const data = JSON.parse(readFileSync(await download.path(), 'utf8'));
    expect(data.profile.email).toBe(email);
    expect(data.workspaces).toEqual([expect.objectContaining({ name: 'Exported', repositories: [expect.objectContaining({ name: 'apt-exported', kind: 'DEB', packages: [] })] })]);
  });

  it('applies a chosen theme at once, and every browser signing in follows the profile', async () => {
    await ui.openSettingsTab('Profile');
    expect(await ui.theme()).toBe('light');
    await page.getByLabel('Theme').selectOption('dark');
    // no Save, no reload
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await screenshot(page, 'settings-profile-dark');

    const other = await openBrowser({ width: 1280, height: 800 });
    try {
      const second = screen(other.page);
      await second.signIn(email, NEW_PASSWORD);
      await other.page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
      // and a change there reaches this browser the next time it loads the profile
      await second.openSettingsTab('Profile');
      const saved = other.page.waitForResponse((response) => response.url().endsWith('/api/v1/user/profile') && response.request().method() === 'PUT');
      await other.page.getByLabel('Theme').selectOption('light');
      await other.page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
      expect((await saved).status()).toBe(200);
    } finally {
      await other.close();
    }
    await page.reload();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    expect(await page.getByLabel('Theme').inputValue()).toBe('light');
  });

  it('enables two-factor sign-in with a code, asks for it at sign-in, takes each recovery code once, and disables', async () => {
    await ui.openSettingsTab('Security');
    await ui.visible('Disabled');
    await ui.button('Enable').click();
    const setup = ui.dialog('Enable Two-Factor Authentication');
    const secret = (await setup.locator('code').innerText()).trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await setup.getByRole('link', { name: 'Open in your authenticator app' }).getAttribute('href')).toMatch(new RegExp(`^otpauth://totp/Packyard:.*secret=${secret}`));
    await screenshot(page, 'settings-two-factor-setup');
    await setup.getByLabel('Authentication code').fill('000000');
    await setup.getByRole('button', { name: 'Enable' }).click();
    await setup.getByRole('alert').getByText('Invalid authentication code').waitFor();
    await setup.getByLabel('Authentication code').fill(totpCode(secret, Date.now()));
    await setup.getByRole('button', { name: 'Enable' }).click();
    const saved = ui.dialog('Save Your Recovery Codes');
    const recoveryCodes = (await saved.locator('code').innerText()).trim().split('\n');
    expect(recoveryCodes).toHaveLength(10);
    await screenshot(page, 'settings-two-factor-recovery-codes');
    await saved.getByRole('button', { name: 'Done' }).click();
    await ui.visible('Enabled');

    const other = await openBrowser({ width: 1280, height: 800 });
    try {
      const second = screen(other.page);
      const signInUpTo2fa = async () => {
        await other.page.goto(`${program.url}/login`);
        await other.page.getByLabel('Email address').fill(email);
        await other.page.getByLabel('Password').fill(NEW_PASSWORD);
        await second.button('Sign in').click();
        await second.visible('Two-factor authentication');
      };
      await signInUpTo2fa();
      await screenshot(other.page, 'login-two-factor');
      // the code that enabled it is spent; the next one signs in
      await other.page.getByLabel('Authentication code').fill(totpCode(secret, Date.now() + 30_000));
      await second.button('Verify').click();
      await waitForPath(other.page, '/dashboard');
      await second.button('Sign out').click();

      await signInUpTo2fa();
      await other.page.getByLabel('Authentication code').fill(recoveryCodes[0]);
      await second.button('Verify').click();
      await waitForPath(other.page, '/dashboard');
      await second.button('Sign out').click();

      await signInUpTo2fa();
      await other.page.getByLabel('Authentication code').fill(recoveryCodes[0]);
      await second.button('Verify').click();
      await other.page.getByRole('alert').getByText('Invalid authentication code').waitFor();
      expect(new URL(other.page.url()).pathname).toBe('/login');
    } finally {
      await other.close();
    }

    await ui.button('Disable').click();
    const disable = ui.dialog('Disable Two-Factor Authentication');
    await disable.getByLabel('Authentication code').fill(recoveryCodes[1]);
    await disable.getByRole('button', { name: 'Disable' }).click();
    await ui.visible('Disabled');
    expect((await auth('login', { email, password: NEW_PASSWORD })).body.idToken).toEqual(expect.any(String));
  });

  it('deletes the account once the password confirms it: signed out, and signing in fails after', async () => {
    await ui.openSettingsTab('Danger Zone');
    await ui.button('Delete Account').click();
    const dialog = ui.dialog('Delete Account');
    await dialog.getByText('This cannot be undone.', { exact: false }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Delete my account' }).isDisabled()).toBe(true);
    await screenshot(page, 'settings-delete-account');
    await dialog.getByLabel('Password').fill('not-my-password');
    await dialog.getByRole('button', { name: 'Delete my account' }).click();
    await dialog.getByRole('alert').getByText('Password is incorrect').waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');

    await dialog.getByLabel('Password').fill(NEW_PASSWORD);
    await dialog.getByRole('button', { name: 'Delete my account' }).click();
    await waitForPath(page, '/login');
    expect(await page.evaluate(() => localStorage.getItem('packyard.session'))).toBeNull();
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await ui.button('Sign in').click();
    await page.getByRole('alert').getByText('Invalid email or password').waitFor();
  });
});

describe('settings and Google sign-in on a 375 px screen, with Google configured', () => {
  let phone: ConsoleBrowser;
  let page: Page;
  let provider: Server;
  const email = `phone-${Date.now()}@example.com`;

  beforeAll(async () => {
    // an OpenID provider that is down: sign-in must come back to the login page with the reason
    provider = createServer((_request, response) => response.writeHead(503).end());
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    program = await startPackyard({ env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'packyard-console', OIDC_CLIENT_SECRET: 'a-client-secret' } });
    phone = await openBrowser({ width: 375, height: 812 });
    page = phone.page;
  });
  afterAll(async () => {
    await phone?.close();
    await program?.dispose();
    provider?.close();
  });

  it('offers Google sign-in when configured, and a failure to start it is explained on the login page', async () => {
    const ui = screen(page);
    const started = page.waitForRequest((request) => request.url().includes('/api/v1/auth/oidc/google/start'));
    await page.goto(`${program.url}/settings`);
    await waitForPath(page, '/login');
    await ui.button('Sign in with Google').click();
    const startUrl = new URL((await started).url());
    expect(startUrl.searchParams.get('returnTo')).toBe('/settings');
    await waitForPath(page, /^\/login\?error=/);
    await ui.visible('Google sign-in is unavailable right now');
    expect(await page.getByText('Google sign-in is not set up on this server').count()).toBe(0);
    await screenshot(page, 'login-google-failed');
  });

  it('walks the password, sessions, API key, two-factor and delete dialogs without overflowing', async () => {
    const ui = screen(page);
    expect((await auth('register', { email, password: PASSWORD })).status).toBe(201);
    await ui.signIn(email, PASSWORD);
    await ui.openSettingsTab('Security');
    await ui.button('Change Password').click();
    const change = ui.dialog('Change Password');
    await change.getByLabel('Current password').fill(PASSWORD);
    await change.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await change.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await screenshot(page, 'settings-change-password');
    await change.getByRole('button', { name: 'Change Password' }).click();
    await ui.visible('Password changed. Your other sessions were signed out.');

    await ui.button('View Sessions').click();
    await ui.dialog('Signed-in Sessions').getByText('This device').waitFor();
    await screenshot(page, 'settings-sessions');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await ui.dialog('Signed-in Sessions').getByRole('button', { name: 'Done' }).click();

    await page.getByRole('tab', { name: 'API Keys' }).click();
    await ui.button('Create New Key').click();
    await ui.dialog('Create API Key').getByLabel('Key Name').fill('phone');
    await ui.dialog('Create API Key').getByRole('button', { name: 'Create Key' }).click();
    await ui.dialog('API Key Created').waitFor();
    await screenshot(page, 'settings-api-key-created');
    await ui.dialog('API Key Created').getByRole('button', { name: 'Done' }).click();
    await page.getByRole('list', { name: 'API keys' }).getByText('phone').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    await page.getByRole('tab', { name: 'Security' }).click();
    await ui.button('Enable').click();
    await ui.dialog('Enable Two-Factor Authentication').getByLabel('Authentication code').waitFor();
    await screenshot(page, 'settings-two-factor-setup');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await ui.dialog('Enable Two-Factor Authentication').getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('tab', { name: 'Danger Zone' }).click();
    await ui.button('Delete Account').click();
    await ui.dialog('Delete Account').getByLabel('Password').waitFor();
    await screenshot(page, 'settings-delete-account');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await ui.dialog('Delete Account').getByRole('button', { name: 'Cancel' }).click();
  });
});
