import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackyard, type RunningPackyard } from '@packyard/testing';

interface SessionBody {
  idToken: string;
  refreshToken: string;
  expiresIn: number;
  user: { id: string; email: string };
}

let ipCounter = 0;
/** every test signs in from its own address (the gateway trusts X-Forwarded-For), so per-IP limits stay apart */
const freshIp = () => `10.0.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;
let emailCounter = 0;
const freshEmail = () => `user${++emailCounter}-${Date.now()}@example.com`;

function client(url: string) {
  const request = async (method: string, path: string, options: { body?: unknown; token?: string; ip?: string } = {}) => {
    const headers: Record<string, string> = { 'x-forwarded-for': options.ip ?? freshIp() };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
  const register = async (email = freshEmail(), password = 'secret-password') => {
    const response = await request('POST', '/api/v1/auth/register', { body: { email, password } });
    expect(response.status).toBe(201);
    return response.body as SessionBody;
  };
  return { request, register };
}

describe('identity: accounts, sessions and settings over HTTP', () => {
  let packyard: RunningPackyard;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    packyard = await startPackyard({ env: { LOGIN_FAILURES_BEFORE_DELAY: '3', LOGIN_FAILURE_WINDOW_S: '600', AUTH_ATTEMPTS_PER_IP: '20', TRUST_PROXY: 'true' } });
    api = client(packyard.url);
  });
  afterAll(() => packyard?.dispose());

  it('registers an account and answers with an ES256 ID token that verifies against the published JWKS', async () => {
    const email = freshEmail();
    const response = await api.request('POST', '/api/v1/auth/register', { body: { email: email.toUpperCase(), password: 'secret-password' } });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const session = response.body as SessionBody;
    expect(session).toEqual({ idToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 900, user: { id: expect.any(String), email } });

    const jwks = createRemoteJWKSet(new URL(`${packyard.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(session.idToken, jwks, { issuer: 'packyard', audience: 'packyard-api', algorithms: ['ES256'] });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload.sub).toBe(session.user.id);
    expect(payload.exp! - payload.iat!).toBe(900);

    const profile = await api.request('GET', '/api/v1/user/profile', { token: session.idToken });
    expect(profile.status).toBe(200);
    expect(profile.body).toEqual({ email, name: '', timezone: 'UTC', theme: 'system', emailNotifications: true, pushNotifications: false, weeklyDigest: true });
  });

  it("refuses registrations the spec's rules forbid, with the spec's messages", async () => {
    const cases: [unknown, number, string][] = [
      [{ email: '', password: 'secret-password' }, 400, 'Email is required'],
      [{ email: 'not-an-email', password: 'secret-password' }, 400, 'Email must be a valid email address'],
      [{ email: freshEmail(), password: '12345' }, 400, 'Password must be at least 6 characters long'],
    ];
    for (const [body, status, message] of cases) {
      const response = await api.request('POST', '/api/v1/auth/register', { body });
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ status, message });
    }
    const missing = await api.request('POST', '/api/v1/auth/register', { body: { password: 'secret-password' } });
    expect(missing.status).toBe(400);

    const email = freshEmail();
    await api.register(email);
    const duplicate = await api.request('POST', '/api/v1/auth/register', { body: { email: ` ${email.toUpperCase()} `, password: 'another-password' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toBe('An account with this email already exists');
  });

  it('signs in with the right password only', async () => {
    const email = freshEmail();
    const registered = await api.register(email, 'right-password');
    const ok = await api.request('POST', '/api/v1/auth/login', { body: { email, password: 'right-password' } });
    expect(ok.status).toBe(200);
    expect(ok.body.user).toEqual(registered.user);
    expect(ok.body.refreshToken).not.toBe(registered.refreshToken);

    for (const body of [{ email, password: 'wrong-password' }, { email: freshEmail(), password: 'right-password' }]) {
      const refused = await api.request('POST', '/api/v1/auth/login', { body });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ status: 401, message: 'Invalid email or password', details: {} });
    }
  });

  it('makes an address wait after LOGIN_FAILURES_BEFORE_DELAY failed sign-ins of an account, never locking the account', async () => {
    const email = freshEmail();
    await api.register(email, 'right-password');
    const guesser = freshIp();
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await api.request('POST', '/api/v1/auth/login', { body: { email, password: 'guess' }, ip: guesser })).status).toBe(401);
    }
    const slowed = await api.request('POST', '/api/v1/auth/login', { body: { email, password: 'right-password' }, ip: guesser });
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers.get('retry-after'))).toBe(1);
    expect(slowed.body.message).toBe('Too many failed sign-ins for this account from here; try again shortly');
    expect((await api.request('POST', '/api/v1/auth/login', { body: { email, password: 'right-password' }, ip: freshIp() })).status).toBe(200);

    const other = await api.register();
    expect((await api.request('POST', '/api/v1/auth/login', { body: { email: other.user.email, password: 'secret-password' } })).status).toBe(200);

    const metrics = await (await fetch(packyard.metricsUrl)).text();
    expect(metrics).toMatch(/packyard_identity_sign_ins_total\{method="password",result="rate_limited"\} [1-9]/);
    expect(metrics).toMatch(/packyard_identity_sign_ins_total\{method="password",result="refused"\} [3-9]/);
  });

  it('limits sign-in and registration attempts per client address (AUTH_ATTEMPTS_PER_IP per minute)', async () => {
    const ip = freshIp();
    const email = freshEmail();
    await api.register(email);
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await api.request('POST', '/api/v1/auth/login', { body: { email, password: 'secret-password' }, ip });
      expect(response.status).toBe(200);
    }
    for (const path of ['/api/v1/auth/login', '/api/v1/auth/register']) {
      const limited = await api.request('POST', path, { body: { email: freshEmail(), password: 'secret-password' }, ip });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    expect((await api.request('POST', '/api/v1/auth/login', { body: { email, password: 'secret-password' } })).status).toBe(200);
  });

  it('rotates refresh tokens, and a reused one signs the whole session out', async () => {
    const first = await api.register();
    const second = await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(second.status).toBe(200);
    expect(second.body.user).toEqual(first.user);
    expect(second.body.refreshToken).not.toBe(first.refreshToken);
    expect((await api.request('GET', '/api/v1/user/profile', { token: second.body.idToken })).status).toBe(200);
    const third = await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: second.body.refreshToken } });
    expect(third.status).toBe(200);

    // the first token comes back: someone copied it, so the family is revoked
    const reused = await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(reused.status).toBe(401);
    expect((await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: third.body.refreshToken } })).status).toBe(401);

    // another sign-in of the same user is a separate session and unaffected
    const other = await api.request('POST', '/api/v1/auth/login', { body: { email: first.user.email, password: 'secret-password' } });
    expect((await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: other.body.refreshToken } })).status).toBe(200);
    expect((await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: 'pyd_rf_made-up' } })).status).toBe(401);
  });

  it('signs a session out with its refresh token', async () => {
    const session = await api.register();
    const logout = await api.request('POST', '/api/v1/auth/logout', { body: { refreshToken: session.refreshToken } });
    expect(logout.status).toBe(204);
    expect((await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    expect((await api.request('POST', '/api/v1/auth/logout', { body: {} })).status).toBe(400);
  });

  it('keeps the profile settings and validates them', async () => {
    const { idToken, user } = await api.register();
    const changes = { name: 'Ada Lovelace', timezone: 'Europe/London', theme: 'dark', emailNotifications: false, pushNotifications: true, weeklyDigest: false };
    const updated = await api.request('PUT', '/api/v1/user/profile', { token: idToken, body: { email: user.email, ...changes } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ email: user.email, ...changes });
    expect((await api.request('GET', '/api/v1/user/profile', { token: idToken })).body).toEqual({ email: user.email, ...changes });

    const refused: [unknown, string][] = [
      [{ timezone: 'Mars/Olympus' }, 'Timezone must be one of UTC, America/New_York, America/Chicago, America/Denver, America/Los_Angeles, Europe/London, Europe/Paris, Asia/Tokyo'],
      [{ theme: 'neon' }, 'Theme must be one of system, light, dark'],
      [{ email: 'someone-else@example.com' }, 'Email cannot be changed. Contact support if needed.'],
    ];
    for (const [body, message] of refused) {
      const response = await api.request('PUT', '/api/v1/user/profile', { token: idToken, body });
      expect(response.status).toBe(400);
      expect(response.body.message).toBe(message);
    }
    expect((await api.request('GET', '/api/v1/user/profile', { token: idToken })).body).toEqual({ email: user.email, ...changes });
    expect((await api.request('GET', '/api/v1/user/profile')).status).toBe(401);
    expect((await api.request('PUT', '/api/v1/user/profile', { body: { name: 'x' } })).status).toBe(401);
  });

  it('reports security settings and changes the password, signing other sessions out', async () => {
    const email = freshEmail();
    const session = await api.register(email, 'old-password');
    const before = await api.request('GET', '/api/v1/user/security', { token: session.idToken });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ twoFactorEnabled: false, lastPasswordChange: null });

    const wrong = await api.request('POST', '/api/v1/user/password', { token: session.idToken, body: { currentPassword: 'nope', newPassword: 'new-password' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('Current password is incorrect');
    const tooShort = await api.request('POST', '/api/v1/user/password', { token: session.idToken, body: { currentPassword: 'old-password', newPassword: '123' } });
    expect(tooShort.body.message).toBe('Password must be at least 6 characters long');

    const changed = await api.request('POST', '/api/v1/user/password', { token: session.idToken, body: { currentPassword: 'old-password', newPassword: 'new-password' } });
    expect(changed.status).toBe(200);
    const after = await api.request('GET', '/api/v1/user/security', { token: changed.body.idToken });
    expect(Date.parse(after.body.lastPasswordChange)).toBeGreaterThan(Date.now() - 60_000);
    expect((await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    expect((await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: changed.body.refreshToken } })).status).toBe(200);
    expect((await api.request('POST', '/api/v1/auth/login', { body: { email, password: 'old-password' } })).status).toBe(401);
    expect((await api.request('POST', '/api/v1/auth/login', { body: { email, password: 'new-password' } })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/user/security')).status).toBe(401);
  });

  it("manages the user's API keys, shows a key's value once, and hides other users' keys", async () => {
    const alice = await api.register();
    const bob = await api.register();
    const created = await api.request('POST', '/api/v1/user/tokens', { token: alice.idToken, body: { name: 'laptop', scopes: ['read', 'publish'] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'laptop', scopes: ['read', 'publish'], createdAt: expect.any(String), lastUsed: null, token: expect.stringMatching(/^pyd_uk_.{40,}$/) });

    const listed = await api.request('GET', '/api/v1/user/tokens', { token: alice.idToken });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([{ id: created.body.id, name: 'laptop', scopes: ['read', 'publish'], createdAt: created.body.createdAt, lastUsed: null }]);
    expect((await api.request('GET', '/api/v1/user/tokens', { token: bob.idToken })).body).toEqual([]);

    expect((await api.request('DELETE', `/api/v1/user/tokens/${created.body.id}`, { token: bob.idToken })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/user/tokens/${created.body.id}`, { token: alice.idToken })).status).toBe(204);
    expect((await api.request('GET', '/api/v1/user/tokens', { token: alice.idToken })).body).toEqual([]);
    expect((await api.request('DELETE', `/api/v1/user/tokens/${created.body.id}`, { token: alice.idToken })).status).toBe(404);

    for (const body of [{ name: ' ', scopes: ['read'] }, { name: 'ci', scopes: [] }, { name: 'ci', scopes: ['root'] }]) {
      expect((await api.request('POST', '/api/v1/user/tokens', { token: alice.idToken, body })).status).toBe(400);
    }
    expect((await api.request('GET', '/api/v1/user/tokens')).status).toBe(401);
  });

  it('accepts a user API key as a bearer credential within its scopes until it is deleted', async () => {
    const { idToken, user } = await api.register();
    const created = await api.request('POST', '/api/v1/user/tokens', { token: idToken, body: { name: 'script', scopes: ['read'] } });
    const key = created.body.token as string;

    const profile = await api.request('GET', '/api/v1/user/profile', { token: key });
    expect(profile.status).toBe(200);
    expect(profile.body.email).toBe(user.email);
    expect((await api.request('PUT', '/api/v1/user/profile', { token: key, body: { name: 'x' } })).status).toBe(403);
    const [listed] = (await api.request('GET', '/api/v1/user/tokens', { token: idToken })).body;
    expect(Date.parse(listed.lastUsed)).toBeGreaterThanOrEqual(Date.parse(created.body.createdAt));

    // an admin key still cannot mint keys: only the signed-in person can
    const admin = await api.request('POST', '/api/v1/user/tokens', { token: idToken, body: { name: 'admin', scopes: ['admin'] } });
    expect((await api.request('POST', '/api/v1/user/tokens', { token: admin.body.token, body: { name: 'more', scopes: ['read'] } })).status).toBe(403);

    expect((await api.request('DELETE', `/api/v1/user/tokens/${created.body.id}`, { token: idToken })).status).toBe(204);
    expect((await api.request('GET', '/api/v1/user/profile', { token: key })).status).toBe(401);
    expect((await api.request('GET', '/api/v1/user/profile', { token: `${key}x` })).status).toBe(401);
  });

  it('refuses tampered or foreign ID tokens', async () => {
    const { idToken } = await api.register();
    const [header, payload] = idToken.split('.');
    const forged = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...forged, sub: 'someone-else' })).toString('base64url')}.${idToken.split('.')[2]}`;
    expect((await api.request('GET', '/api/v1/user/profile', { token: tampered })).status).toBe(401);
    expect(decodeProtectedHeader(idToken).kid).toBeTruthy();
  });

  it('documents the auth and user routes in the OpenAPI document', async () => {
    const doc = await (await fetch(`${packyard.url}/api/openapi.json`)).json();
    for (const path of ['/api/v1/auth/register', '/api/v1/auth/login', '/api/v1/auth/refresh', '/api/v1/auth/logout', '/api/v1/auth/oidc/google/start', '/api/v1/user/profile', '/api/v1/user/security', '/api/v1/user/tokens', '/api/v1/user/tokens/{id}', '/.well-known/jwks.json']) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    expect(Object.keys(doc.paths['/api/v1/user/profile'])).toEqual(expect.arrayContaining(['get', 'put']));
  });

  it("lets a fresh ID token use the rest of the API (GET /api/v1/workspaces)", async () => {
    const { idToken } = await api.register();
    const response = await api.request('GET', '/api/v1/workspaces', { token: idToken });
    expect(response.status).toBe(200);
  });
});

describe('identity across a restart', () => {
  it('keeps the signing key, the accounts and the sessions', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-identity-'));
    try {
      const first = await startPackyard({ dataDir });
      let session: SessionBody;
      try {
        session = await client(first.url).register('restart@example.com', 'secret-password');
      } finally {
        expect(await first.stop()).toBe(0);
      }
      const second = await startPackyard({ dataDir });
      try {
        const api = client(second.url);
        const profile = await api.request('GET', '/api/v1/user/profile', { token: session.idToken });
        expect(profile.status).toBe(200);
        expect(profile.body.email).toBe('restart@example.com');
        expect((await api.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(200);
        expect((await api.request('POST', '/api/v1/auth/login', { body: { email: 'restart@example.com', password: 'secret-password' } })).status).toBe(200);
        expect((await api.request('POST', '/api/v1/auth/register', { body: { email: 'restart@example.com', password: 'secret-password' } })).status).toBe(409);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
