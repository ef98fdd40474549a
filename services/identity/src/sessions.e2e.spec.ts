import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { apiSession } from '@packyard/testing/api-session';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1';
const PASSWORD = 'correct horse battery';

interface SessionBody {
  idToken: string;
  refreshToken: string;
}

describe('identity: signed-in sessions and sign-in options over HTTP', () => {
  let packyard: RunningPackyard;
  beforeAll(async () => {
    packyard = await startPackyard({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => packyard?.dispose());

  /** an auth call from a device: its browser and address */
  const auth = async (path: string, body: unknown, device: { userAgent: string; ip: string }) => {
    const response = await fetch(`${packyard.url}/api/v1/auth/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': device.userAgent, 'x-forwarded-for': device.ip },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as SessionBody };
  };
  const laptop = { userAgent: FIREFOX, ip: '192.0.2.10' };
  const phone = { userAgent: IPHONE, ip: '198.51.100.7' };

  async function accountOnTwoDevices() {
    const email = `sessions-${randomUUID()}@example.com`;
    const onLaptop = (await auth('register', { email, password: PASSWORD }, laptop)).body;
    const onPhone = (await auth('login', { email, password: PASSWORD }, phone)).body;
    return { email, onLaptop, onPhone, fromPhone: apiSession(packyard, onPhone.idToken, email), fromLaptop: apiSession(packyard, onLaptop.idToken, email) };
  }

  it("lists the account's sessions with device, address and times, marking the caller's own", async () => {
    const { fromPhone, fromLaptop } = await accountOnTwoDevices();
    const listed = await fromPhone.call('GET', '/user/sessions');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { id: expect.any(String), userAgent: IPHONE, clientIp: phone.ip, createdAt: expect.any(String), lastUsedAt: expect.any(String), current: true },
      { id: expect.any(String), userAgent: FIREFOX, clientIp: laptop.ip, createdAt: expect.any(String), lastUsedAt: expect.any(String), current: false },
    ]);
    expect(Date.parse(listed.body[0].createdAt)).toBeGreaterThan(Date.now() - 60_000);
    const fromTheLaptop = (await fromLaptop.call('GET', '/user/sessions')).body;
    expect(fromTheLaptop.find((entry: { current: boolean }) => entry.current).userAgent).toBe(FIREFOX);
  });

  it('moves a refreshed session to the top with its new address, and keeps it the current one', async () => {
    const { onLaptop, fromPhone } = await accountOnTwoDevices();
    const refreshed = await auth('refresh', { refreshToken: onLaptop.refreshToken }, { ...laptop, ip: '192.0.2.77' });
    expect(refreshed.status).toBe(200);
    const listed = (await fromPhone.call('GET', '/user/sessions')).body;
    expect(listed.map((entry: { clientIp: string }) => entry.clientIp)).toEqual(['192.0.2.77', phone.ip]);
    const fromRefreshed = (await apiSession(packyard, refreshed.body.idToken).call('GET', '/user/sessions')).body;
    expect(fromRefreshed[0]).toMatchObject({ userAgent: FIREFOX, current: true });
  });

  it('signs out one session: its refresh token stops working, the others keep theirs', async () => {
    const { onLaptop, onPhone, fromPhone } = await accountOnTwoDevices();
    const laptopSession = (await fromPhone.call('GET', '/user/sessions')).body.find((entry: { current: boolean }) => !entry.current);
    expect((await fromPhone.call('DELETE', `/user/sessions/${laptopSession.id}`)).status).toBe(204);
    expect((await auth('refresh', { refreshToken: onLaptop.refreshToken }, laptop)).status).toBe(401);
    expect((await fromPhone.call('GET', '/user/sessions')).body).toHaveLength(1);
    expect((await auth('refresh', { refreshToken: onPhone.refreshToken }, phone)).status).toBe(200);
    const again = await fromPhone.call('DELETE', `/user/sessions/${laptopSession.id}`);
    expect(again).toEqual({ status: 404, body: { status: 404, message: 'Session not found', details: expect.any(Object) } });
  });

  it("signs out every other session, and never another user's", async () => {
    const alice = await accountOnTwoDevices();
    const bob = await accountOnTwoDevices();
    const bobsSession = (await bob.fromPhone.call('GET', '/user/sessions')).body[0];
    expect((await alice.fromPhone.call('DELETE', `/user/sessions/${bobsSession.id}`)).status).toBe(404);

    const aliceOnTablet = (await auth('login', { email: alice.email, password: PASSWORD }, { userAgent: 'tablet', ip: '203.0.113.5' })).body;
    expect((await alice.fromPhone.call('DELETE', '/user/sessions')).status).toBe(204);
    expect((await alice.fromPhone.call('GET', '/user/sessions')).body).toEqual([expect.objectContaining({ userAgent: IPHONE, current: true })]);
    expect((await auth('refresh', { refreshToken: alice.onLaptop.refreshToken }, laptop)).status).toBe(401);
    expect((await auth('refresh', { refreshToken: aliceOnTablet.refreshToken }, laptop)).status).toBe(401);
    expect((await auth('refresh', { refreshToken: alice.onPhone.refreshToken }, phone)).status).toBe(200);
    expect((await bob.fromLaptop.call('GET', '/user/sessions')).body).toHaveLength(2);
  });

  it('keeps the device of the session that changed the password on the session that replaces it', async () => {
    const { fromPhone, onLaptop } = await accountOnTwoDevices();
    const changed = await fromPhone.call('POST', '/user/password', { currentPassword: PASSWORD, newPassword: 'a new password' });
    expect(changed.status).toBe(200);
    expect((await auth('refresh', { refreshToken: onLaptop.refreshToken }, laptop)).status).toBe(401);
    expect((await apiSession(packyard, changed.body.idToken).call('GET', '/user/sessions')).body).toEqual([
      expect.objectContaining({ userAgent: IPHONE, clientIp: phone.ip, current: true }),
    ]);
  });

  it('lets only a signed-in person see and end sessions, not an API key', async () => {
    const { fromPhone } = await accountOnTwoDevices();
    const key = (await fromPhone.call('POST', '/user/tokens', { name: 'ci', scopes: ['read', 'publish', 'admin'] })).body.token;
    expect((await fromPhone.as(key).call('GET', '/user/sessions')).status).toBe(403);
    expect((await fromPhone.as(key).call('DELETE', '/user/sessions')).status).toBe(403);
    expect((await apiSession(packyard, '').call('GET', '/user/sessions')).status).toBe(401);
  });

  it('tells the login page that Google sign-in is off, and sends a browser that starts it back to /login with the reason', async () => {
    const options = await fetch(`${packyard.url}/api/v1/auth/options`);
    expect(options.status).toBe(200);
    expect(await options.json()).toEqual({ google: false, passwordReset: false });
    const started = await fetch(`${packyard.url}/api/v1/auth/oidc/google/start?returnTo=/workspaces`, { redirect: 'manual' });
    expect(started.status).toBe(302);
    expect(started.headers.get('location')).toBe(`/login?${new URLSearchParams({ error: 'Google sign-in is not configured' })}`);
  });

  it('documents the new routes in the OpenAPI document', async () => {
    const doc = await (await fetch(`${packyard.url}/api/openapi.json`)).json();
    expect(Object.keys(doc.paths['/api/v1/user/sessions'])).toEqual(expect.arrayContaining(['get', 'delete']));
    expect(doc.paths).toHaveProperty(['/api/v1/user/sessions/{id}', 'delete']);
    expect(doc.paths).toHaveProperty(['/api/v1/auth/options', 'get']);
  });
});
