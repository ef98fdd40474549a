import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningPackyard, waitFor } from '@packyard/testing';
import { type ApiSession, registerUser } from '@packyard/testing/api-session';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerNextConfirm, buildConsole, type ConsoleBrowser, openBrowser, screenshot, signIn, startPackyard, waitForPath } from './console-harness';

// The workspace's Webhooks page in Chromium against the single-node program and a real
// receiver on 127.0.0.1: adding a webhook (its secret shown once, and it is the one that signs),
// a test ping answered 500 and then retried, the delivery log with status codes, the attempts
// of one delivery, a redelivery; at 1280 and 375 px.

let program: RunningPackyard;
let browser: ConsoleBrowser;
let page: Page;
let user: ApiSession;
let workspaceId = '';
let receiver: Server;
let receiverUrl = '';
const received: { headers: IncomingHttpHeaders; body: string; json: { id: string; type: string } }[] = [];
let failNext = 0;
const at = (path: string) => `${program.url}${path}`;

beforeAll(async () => {
  buildConsole();
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: request.headers, body, json: JSON.parse(body) });
      if (failNext > 0) {
        failNext--;
        response.writeHead(500).end('not today');
      } else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/packyard`;
  program = await startPackyard({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_FIRST_RETRY_S: '1' } });
  user = await registerUser(program);
  workspaceId = (await user.call('POST', '/workspaces', { name: 'Acme', slug: 'acme', description: '' })).body.id;

  browser = await openBrowser({ width: 1280, height: 900 });
  page = browser.page;
  await signIn(page, program.url, user.email);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await program?.dispose();
  await new Promise((resolve) => receiver?.close(resolve));
});

const deliveryRows = () => page.getByRole('table', { name: 'Deliveries' }).getByRole('row');

describe('the workspace Webhooks page', () => {
  it('(1280 px) adds a webhook, shows its secret once, and the log shows a ping answered 500, retried, and redelivered', async () => {
    await page.goto(at(`/workspaces/${workspaceId}/repos`));
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await waitForPath(page, `/workspaces/${workspaceId}/webhooks`);
    await page.getByText('No webhooks yet').waitFor();
    await page.getByRole('button', { name: 'Add Webhook' }).first().click();

    const form = page.getByRole('form', { name: 'Add webhook' });
    await form.getByLabel('Payload URL').fill('ftp://files.example.com/hook');
    await form.getByRole('button', { name: 'Add Webhook' }).click();
    await form.getByText('URL must start with http:// or https://').waitFor();
    await form.getByLabel('Payload URL').fill(receiverUrl);
    await form.getByLabel('Token revoked').uncheck();
    await screenshot(page, 'workspace-webhook-new');
    await form.getByRole('button', { name: 'Add Webhook' }).click();

    const shown = page.getByRole('dialog', { name: 'Webhook Added' });
    await shown.getByText("Make sure to copy your webhook secret now. You won't be able to see it again!").waitFor();
    const secret = /whsec_[A-Za-z0-9_-]{43}/.exec(await shown.locator('code').innerText())?.[0] ?? '';
    expect(secret).not.toBe('');
    await shown.getByRole('button', { name: 'Done' }).click();

    const row = page.getByRole('list', { name: 'Webhooks' }).getByRole('listitem');
    await row.getByText(receiverUrl).waitFor();
    expect(await row.innerText()).toContain('package.published');
    expect(await row.innerText()).not.toContain('token.revoked');
    await page.getByText('No deliveries yet').first().waitFor();

    failNext = 1;
    await row.getByRole('button', { name: 'Send test' }).click();
    // the first attempt gets a 500; a second later the retry gets a 204
    const ping = deliveryRows().filter({ hasText: 'Test ping' });
    await ping.filter({ hasText: 'Delivered' }).waitFor({ timeout: 20_000 });
    expect(await ping.innerText()).toMatch(/HTTP 204[\s\S]*\d+ ms/);
    expect(await ping.locator('td[data-label="Attempts"]').innerText()).toBe('2');
    const pings = received.filter((entry) => entry.json.type === 'ping');
    expect(pings).toHaveLength(2);
    const [t, v1] = (pings[1].headers['packyard-signature'] as string).split(',').map((part) => part.split('=')[1]);
    expect(v1, 'the secret shown signs the deliveries').toBe(createHmac('sha256', secret).update(`${t}.${pings[1].body}`).digest('hex'));

    await ping.getByRole('button', { name: /^Details of Test ping delivery/ }).click();
    const details = page.getByRole('dialog', { name: 'Test ping delivery' });
    const attempts = details.getByRole('table', { name: 'Attempts' }).getByRole('row');
    await attempts.filter({ hasText: 'HTTP 204' }).waitFor();
    expect(await attempts.filter({ hasText: '#1' }).innerText()).toContain('HTTP 500');
    expect(await attempts.filter({ hasText: '#1' }).innerText()).toContain('not today');
    expect(await details.locator('code').innerText()).toContain(`"id": "${pings[0].json.id}"`);
    await screenshot(page, 'workspace-webhook-delivery');
    await details.getByRole('button', { name: 'Close' }).click();

    // an event of the workspace: a repository made through the API shows up in the log
    await user.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'tools', kind: 'DEB' });
    await deliveryRows().filter({ hasText: 'Repository created' }).filter({ hasText: 'Delivered' }).waitFor({ timeout: 20_000 });

    await ping.getByRole('button', { name: /^Redeliver Test ping delivery/ }).click();
    await waitFor('the redelivery', async () => (received.filter((entry) => entry.json.type === 'ping').length === 3 ? true : undefined));
    expect(received.filter((entry) => entry.json.type === 'ping').every((entry) => entry.json.id === pings[0].json.id)).toBe(true);
    await waitFor('the third attempt in the log', async () => ((await ping.locator('td[data-label="Attempts"]').innerText()) === '3' ? true : undefined));
    expect(await ping.innerText()).toContain('Delivered');
    await screenshot(page, 'workspace-webhooks');
  });

  it('(375 px) fits the screen: the log becomes cards', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(at(`/workspaces/${workspaceId}/webhooks`));
    await deliveryRows().filter({ hasText: 'Test ping' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const response = await page.getByRole('table', { name: 'Deliveries' }).getByRole('cell').filter({ hasText: 'HTTP 204' }).first().boundingBox();
    expect(response!.width).toBeGreaterThan(250);
    await screenshot(page, 'workspace-webhooks');
  });

  it('(375 px) turns the webhook off and deletes it after confirmation', async () => {
    const row = page.getByRole('list', { name: 'Webhooks' }).getByRole('listitem');
    await row.getByRole('button', { name: 'Turn off' }).click();
    await row.getByText('Inactive').waitFor();
    expect(await row.getByRole('button', { name: 'Send test' }).isDisabled()).toBe(true);
    const confirmation = answerNextConfirm(page, true);
    await row.getByRole('button', { name: `Delete webhook ${receiverUrl}` }).click();
    expect(await confirmation).toBe(`Delete the webhook to ${receiverUrl}? Its delivery log goes with it.`);
    await page.getByText('No webhooks yet').waitFor();
    expect((await user.call('GET', `/workspaces/${workspaceId}/webhooks`)).body).toEqual([]);
  });
});
