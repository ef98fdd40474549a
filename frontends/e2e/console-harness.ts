import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPackyard } from '@packyard/testing';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

const FRONTENDS = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The committed screenshots are refreshed on request only, so a test run leaves the checkout clean. */
export const SCREENSHOTS = process.env.PACKYARD_UPDATE_SCREENSHOTS ? join(FRONTENDS, 'screenshots') : mkdtempSync(join(tmpdir(), 'packyard-screenshots-'));
// Remotes first: the shell's build ends with a size report that reads their manifests.
// the remotes first: the shell's build ends with a size report that reads every manifest
const CONSOLE_PROJECTS = ['@packyard/repository-console', '@packyard/workspaces', '@packyard/tokens', '@packyard/settings', '@packyard/shell'];

/** The repository remote is built by its own project; until it exists, the shell must show a panel. */
export const REPOSITORY_REMOTE_BUILT = existsSync(join(FRONTENDS, 'repository', 'dist', 'mf-manifest.json'));

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Production builds, as the single-node program serves them (it lists remotes at start-up). */
export function buildConsole(): void {
  // CI builds everything just before the tests (`npm run build`) and says so
  if (process.env.PACKYARD_CONSOLE_PREBUILT) return;
  for (const project of CONSOLE_PROJECTS) {
    execFileSync('npm', ['run', 'build', '--silent', '-w', project], { cwd: join(FRONTENDS, '..'), stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } });
  }
}

export { startPackyard };

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** A Chromium with a fresh profile, as a first-time visitor has. */
export async function openBrowser(viewport: { width: number; height: number }): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'packyard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, viewport });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => console.error('page error:', error.message));
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the page's path (and query) matches. */
export async function waitForPath(page: Page, expected: string | RegExp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const matches = () => {
    const { pathname, search } = new URL(page.url());
    return typeof expected === 'string' ? pathname + search === expected || pathname === expected : expected.test(pathname + search);
  };
  while (!matches()) {
    if (Date.now() > deadline) throw new Error(`expected path ${expected}, still at ${page.url()}`);
    await pause(50);
  }
}

/** Holds the next `times` matching requests back, so busy and loading states stay on screen long enough to see. */
export async function delayNext(page: Page, pattern: string, ms: number, times = 1): Promise<void> {
  await page.route(
    pattern,
    async (route) => {
      await pause(ms);
      await route.fallback();
    },
    { times },
  );
}

/** Answers the next window.confirm and returns its text. */
export function answerNextConfirm(page: Page, accept: boolean): Promise<string> {
  return new Promise((resolve) => {
    page.once('dialog', (dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
  });
}

/** Signs in on the login page as a user of the API session kit (its password) and waits for the dashboard. */
export async function signIn(page: Page, origin: string, email: string, password = 'correct horse battery'): Promise<void> {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await waitForPath(page, '/dashboard');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  // a full-page capture keeps the scroll position: sticky parts would be drawn where they sit mid-scroll
  await page.evaluate(() => window.scrollTo(0, 0));
  await pause(250);
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
}
