import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser } from '@packyard/testing/api-session';
import { totpCode } from './two-factor/totp';

const PASSWORD = 'correct horse battery';
const STEP_MS = 30_000;

describe('two-factor authentication (TOTP and recovery codes) over HTTP', () => {
  let packyard: RunningPackyard;
  beforeAll(async () => {
    packyard = await startPackyard();
  });
  afterAll(() => packyard?.dispose());

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${packyard.url}/api/v1/auth/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };

  async function accountWithTwoFactor() {
    const email = `two-factor-${randomUUID()}@example.com`;
    const user = await registerUser(packyard, email);
    const setup = await user.call('POST', '/user/two-factor/setup');
    expect(setup.status).toBe(200);
    const { secret } = setup.body;
    const enabledAt = Date.now();
    const enabled = await user.call('POST', '/user/two-factor/enable', { code: totpCode(secret, enabledAt) });
    expect(enabled.status).toBe(200);
    return { email, user, secret, enabledAt, recoveryCodes: enabled.body.recoveryCodes as string[] };
  }

  it('enables with a code from the pending secret and answers ten recovery codes once', async () => {
    const user = await registerUser(packyard, `two-factor-${randomUUID()}@example.com`);
    expect((await user.call('POST', '/user/two-factor/enable', { code: '123456' })).body.message).toBe('Two-factor setup has expired; start again');
    const setup = (await user.call('POST', '/user/two-factor/setup')).body;
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.otpauthUri).toBe(`otpauth://totp/Packyard:${encodeURIComponent(user.email)}?secret=${setup.secret}&issuer=Packyard&algorithm=SHA1&digits=6&period=30`);
    const wrong = await user.call('POST', '/user/two-factor/enable', { code: totpCode(setup.secret, Date.now() - 5 * STEP_MS) });
    expect(wrong).toEqual({ status: 400, body: { status: 400, message: 'Invalid authentication code', details: expect.any(Object) } });
    expect((await user.call('GET', '/user/security')).body.twoFactorEnabled).toBe(false);

    const enabled = await user.call('POST', '/user/two-factor/enable', { code: totpCode(setup.secret, Date.now()) });
    expect(enabled.status).toBe(200);
    expect(enabled.body.recoveryCodes).toHaveLength(10);
    expect(new Set(enabled.body.recoveryCodes).size).toBe(10);
    for (const code of enabled.body.recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect((await user.call('GET', '/user/security')).body.twoFactorEnabled).toBe(true);
    expect((await user.call('POST', '/user/two-factor/setup')).status).toBe(409);
  });

  it('asks for the second factor at sign-in; a code counts once, a recovery code once', async () => {
    const { email, secret, enabledAt, recoveryCodes } = await accountWithTwoFactor();
    const first = await post('login', { email, password: PASSWORD });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ twoFactorRequired: true, challenge: expect.any(String) });

    // the code that enabled it was spent then (the very code: a code of now is a later step's once a step boundary passed)
    expect((await post('login/two-factor', { challenge: first.body.challenge, code: totpCode(secret, enabledAt) })).status).toBe(401);
    const signedIn = await post('login/two-factor', { challenge: first.body.challenge, code: totpCode(secret, enabledAt + STEP_MS) });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ idToken: expect.any(String), refreshToken: expect.any(String), user: { email } });
    // a challenge is good for one sign-in
    expect((await post('login/two-factor', { challenge: first.body.challenge, code: recoveryCodes[0] })).body.message).toBe('This sign-in has expired; sign in again');

    const second = (await post('login', { email, password: PASSWORD })).body.challenge;
    expect((await post('login/two-factor', { challenge: second, code: recoveryCodes[0].toUpperCase() })).status).toBe(200);
    const third = (await post('login', { email, password: PASSWORD })).body.challenge;
    expect((await post('login/two-factor', { challenge: third, code: recoveryCodes[0] })).body).toMatchObject({ status: 401, message: 'Invalid authentication code' });
    expect((await post('login/two-factor', { challenge: third, code: recoveryCodes[1] })).status).toBe(200);
  });

  it('gives up on a challenge after five wrong codes', async () => {
    const { email, recoveryCodes } = await accountWithTwoFactor();
    const { challenge } = (await post('login', { email, password: PASSWORD })).body;
    for (let attempt = 0; attempt < 5; attempt++) expect((await post('login/two-factor', { challenge, code: '000000' })).status).toBe(401);
    expect((await post('login/two-factor', { challenge, code: recoveryCodes[0] })).body.message).toBe('This sign-in has expired; sign in again');
  });

  it('disables with a recovery code; sign-in asks for the password only again', async () => {
    const { email, user, recoveryCodes } = await accountWithTwoFactor();
    expect((await user.call('POST', '/user/two-factor/disable', { code: 'nope' })).status).toBe(400);
    expect((await user.call('POST', '/user/two-factor/disable', { code: recoveryCodes[3] })).status).toBe(204);
    expect((await user.call('GET', '/user/security')).body.twoFactorEnabled).toBe(false);
    expect((await post('login', { email, password: PASSWORD })).body).toMatchObject({ idToken: expect.any(String) });
    expect((await user.call('POST', '/user/two-factor/disable', { code: recoveryCodes[4] })).status).toBe(409);
  });
});
