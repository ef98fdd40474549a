import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailSink, startPackyard, type MailSink, type RunningPackyard } from '@packyard/testing';
import { registerUser } from '@packyard/testing/api-session';

const PASSWORD = 'correct horse battery';
const PUBLIC_URL = 'https://packages.example.com';

describe('password reset by e-mail, through a real SMTP server', () => {
  let packyard: RunningPackyard;
  let mail: MailSink;
  beforeAll(async () => {
    mail = await startMailSink();
    packyard = await startPackyard({ env: { SMTP_URL: mail.url, MAIL_FROM: 'Packyard <robot@packages.example.com>', PUBLIC_URL } });
  });
  afterAll(async () => {
    await packyard?.dispose();
    await mail?.close();
  });

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${packyard.url}/api/v1/auth/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const tokenIn = (text: string) => /\/reset-password#token=([\w-]+)/.exec(text)?.[1];

  it('mails a link that sets a new password once, signs every session out, and then is spent', async () => {
    const email = `forgetful-${randomUUID()}@example.com`;
    await registerUser(packyard, email);
    const session = (await post('login', { email, password: PASSWORD })).body;
    expect((await fetch(`${packyard.url}/api/v1/auth/options`).then((response) => response.json())).passwordReset).toBe(true);

    const requested = await post('password-reset', { email: email.toUpperCase() });
    expect(requested).toEqual({ status: 202, body: { message: 'If an account exists for this email, a link to reset its password is on its way.' } });
    const message = await mail.nextTo(email);
    expect(message.from).toBe('robot@packages.example.com');
    expect(message.raw).toMatch(/^Subject: Reset your Packyard password\r?$/m);
    expect(message.text).toContain(`${PUBLIC_URL}/reset-password#token=`);
    const token = tokenIn(message.text)!;
    expect(token.length).toBeGreaterThan(40);

    expect((await post('password-reset/confirm', { token, newPassword: '123' })).body.message).toBe('Password must be at least 6 characters long');
    expect((await post('password-reset/confirm', { token, newPassword: 'a brand new one' })).status).toBe(204);
    expect((await post('login', { email, password: PASSWORD })).status).toBe(401);
    expect((await post('login', { email, password: 'a brand new one' })).status).toBe(200);
    expect((await post('refresh', { refreshToken: session.refreshToken })).status).toBe(401);

    const again = await post('password-reset/confirm', { token, newPassword: 'yet another one' });
    expect(again).toEqual({ status: 400, body: { status: 400, message: 'This password reset link has expired or was already used', details: expect.any(Object) } });
  });

  it('answers the same for an address without an account, and sends nothing', async () => {
    const nobody = `nobody-${randomUUID()}@example.com`;
    expect((await post('password-reset', { email: nobody })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mail.received.some((message) => message.to.includes(nobody))).toBe(false);
    expect((await post('password-reset/confirm', { token: 'made-up', newPassword: 'whatever-123' })).status).toBe(400);
  });

  it('spends every link of the account with one reset', async () => {
    const email = `twice-${randomUUID()}@example.com`;
    await registerUser(packyard, email);
    await post('password-reset', { email });
    await post('password-reset', { email });
    const [first, second] = [tokenIn((await mail.nextTo(email)).text)!, tokenIn((await mail.nextTo(email)).text)!];
    expect(first).not.toBe(second);
    expect((await post('password-reset/confirm', { token: second, newPassword: 'second link' })).status).toBe(204);
    // one reset spends every link of the account
    expect((await post('password-reset/confirm', { token: first, newPassword: 'first link' })).status).toBe(400);
  });
});

describe('password reset without SMTP_URL', () => {
  let packyard: RunningPackyard;
  beforeAll(async () => {
    packyard = await startPackyard();
  });
  afterAll(() => packyard?.dispose());

  it('says it is not configured (503) and the login page is told so', async () => {
    const response = await fetch(`${packyard.url}/api/v1/auth/password-reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com' }) });
    expect(response.status).toBe(503);
    expect((await response.json()).message).toBe('Password reset by email is not configured on this server');
    expect(await (await fetch(`${packyard.url}/api/v1/auth/options`)).json()).toEqual({ google: false, passwordReset: false });
  });
});
