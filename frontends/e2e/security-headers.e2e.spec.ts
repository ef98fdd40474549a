import type { RunningPackyard } from '@packyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, type ConsoleBrowser, openBrowser, startPackyard, waitForPath } from './console-harness';

// The console under a Content-Security-Policy without 'unsafe-inline', in Chromium: it must
// load and sign in with not one violation reported.

let program: RunningPackyard;
let browser: ConsoleBrowser;

beforeAll(buildConsole);

beforeAll(async () => {
  program = await startPackyard({ env: { TRUST_PROXY: 'true' } });
  browser = await openBrowser({ width: 1280, height: 800 });
});

afterAll(async () => {
  await browser?.close();
  await program?.dispose();
});

const headersOf = async (path: string, headers: Record<string, string> = {}) => (await fetch(`${program.url}${path}`, { headers })).headers;

describe('security headers', () => {
  it('the console and the API forbid framing, sniffing and inline code; HSTS only over TLS', async () => {
    for (const path of ['/', '/login', '/api/openapi.json', '/api/v1/workspaces']) {
      const headers = await headersOf(path);
      const csp = headers.get('content-security-policy') ?? '';
      expect({ path, csp }).toMatchObject({ path, csp: expect.stringContaining("frame-ancestors 'none'") });
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(headers.get('x-frame-options')).toBe('DENY');
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(headers.get('strict-transport-security')).toBeNull();
    }
    // behind a TLS-terminating proxy the program trusts (TRUST_PROXY)
    expect((await headersOf('/login', { 'x-forwarded-proto': 'https' })).get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });

  it('the apt/yum edge carries none of the page headers', async () => {
    const headers = await headersOf('/deb/nobody/nothing/ubuntu/dists/noble/InRelease');
    expect(headers.get('content-security-policy')).toBeNull();
    expect(headers.get('x-frame-options')).toBeNull();
  });

  it('Chromium loads the console and signs in with no CSP violation reported', async () => {
    const { page } = browser;
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`));
    });
    await page.goto(`${program.url}/workspaces`);
    await waitForPath(page, '/login');
    await page.getByText('Sign in to Packyard').first().waitFor({ state: 'visible', timeout: 15_000 });
    await page.getByRole('button', { name: 'Create an account', exact: true }).click();
    await page.getByLabel('Email address').fill(`csp-${Date.now()}@example.com`);
    await page.getByLabel('Password', { exact: true }).fill('correct-horse-1');
    await page.getByLabel('Confirm password').fill('correct-horse-1');
    await page.getByRole('button', { name: 'Create account', exact: true }).click();
    await waitForPath(page, '/workspaces', 15_000);
    await page.getByText('No workspaces yet').first().waitFor({ state: 'visible', timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    console.log(`console signed in under the CSP; violations reported: ${violations.length}`);
    expect(violations).toEqual([]);
  });
});
