// Throwaway visual preview with a stubbed API (not committed).
import { chromium } from 'playwright-core';
import { startPackyard } from '@packyard/testing';
const program = await startPackyard();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const now = new Date().toISOString();
const workspaces = [{ id: 'w1', name: 'My Team', slug: 'my-team', description: 'Backend services and CLI tools', repositoryCount: 2, storageBytesUsed: 1234567, bandwidthBytesMonth: 98765432, createdAt: now }];
const repos = [{ id: 'r1', name: 'backend-tools', kind: 'DEB', codename: 'stable', component: 'main', packageCount: 12, sizeBytes: 45678901, createdAt: now, updatedAt: now }, { id: 'r2', name: 'infra', kind: 'RPM', codename: '', component: '', packageCount: 3, sizeBytes: 1234, createdAt: now, updatedAt: now }];
const tokens = [{ id: 't1', name: 'ci-deployment', scopes: ['read', 'publish'], createdAt: now, lastUsed: null }, { id: 't2', name: 'admin-bot', scopes: ['admin'], repositoryId: 'r1', createdAt: now, lastUsed: now }];
const answers: Record<string, unknown> = {
  'GET /api/v1/workspaces': { workspaces },
  'GET /api/v1/usage/summary': { storageBytesUsed: 1234567890, storageBytesLimit: 5 * 1024 ** 3, egressBytesUsed: 9.5 * 1024 ** 3, egressBytesLimit: 10 * 1024 ** 3 },
  'GET /api/v1/workspaces/w1': workspaces[0],
  'GET /api/v1/workspaces/w1/repos': repos,
  'GET /api/v1/repos': repos,
  'GET /api/v1/tokens': tokens,
  'GET /api/v1/user/profile': { email: 'ada@example.com', name: 'Ada', timezone: 'Europe/London', theme: 'system' },
  'GET /api/v1/user/security': { twoFactorEnabled: false, lastPasswordChange: null },
  'GET /api/v1/user/tokens': [{ id: 'k1', name: 'laptop', scopes: ['read'], createdAt: now, lastUsed: null }],
  'POST /api/v1/tokens': { id: 't3', name: 'x', scopes: ['read'], createdAt: now, token: 'pk_live_3f9a2c1d8e7b6a5f4e3d2c1b0a998877' },
};
for (const width of [1280, 375]) {
  const context = await browser.newContext({ viewport: { width, height: width === 375 ? 812 : 800 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.route('**/api/**', async (route) => {
    const url = new URL(route.request().url());
    const key = `${route.request().method()} ${url.pathname}`;
    if (url.pathname === '/api/actuator/health') return route.continue();
    if (key in answers) return route.fulfill({ json: answers[key] });
    return route.fulfill({ status: 404, json: { status: 404, message: 'not stubbed ' + key } });
  });
  await page.goto(program.url + '/login');
  await page.evaluate(() => localStorage.setItem('packyard.session', JSON.stringify({ idToken: 'x', refreshToken: 'y', expiresAt: Date.now() + 3600e3 })));
  for (const [name, path] of [['dashboard', '/dashboard'], ['workspaces', '/workspaces'], ['repos', '/workspaces/w1/repos'], ['repo-detail', '/workspaces/w1/repos/r1'], ['tokens', '/tokens'], ['settings', '/settings'], ['billing', '/billing']]) {
    await page.goto(program.url + path);
    await page.waitForTimeout(700);
    await page.screenshot({ path: `/tmp/pk/${name}-${width}.png`, fullPage: true });
  }
  await page.goto(program.url + '/workspaces/w1/repos');
  await page.getByRole('button', { name: 'New Repository' }).first().click();
  await page.waitForTimeout(300);
  await page.screenshot({ path: `/tmp/pk/repo-dialog-${width}.png` });
  await page.goto(program.url + '/tokens');
  await page.getByRole('button', { name: 'Create Access Token' }).click();
  await page.getByLabel('Token Name').fill('deploy');
  await page.screenshot({ path: `/tmp/pk/token-dialog-${width}.png` });
  await page.getByRole('button', { name: 'Create Token' }).click();
  await page.waitForTimeout(300);
  await page.screenshot({ path: `/tmp/pk/token-created-${width}.png` });
  if (width === 375) {
    await page.goto(program.url + '/dashboard');
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.waitForTimeout(300);
    await page.screenshot({ path: `/tmp/pk/menu-${width}.png` });
  }
  await context.close();
}
await browser.close();
await program.dispose();
