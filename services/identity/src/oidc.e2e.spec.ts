import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackyard, type RunningPackyard } from '@packyard/testing';

const CLIENT_ID = 'packyard-console';
const CLIENT_SECRET = 'a-client-secret-long-enough-for-hs256-0123456789';

/** the local OpenID provider's people; the test picks who signs in next */
const PEOPLE: Record<string, { email: string; email_verified: boolean; name: string }> = {
  'google-ada': { email: 'ada.oidc@example.com', email_verified: true, name: 'Ada' },
  'google-bob': { email: 'bob.linked@example.com', email_verified: true, name: 'Bob' },
  'google-eve': { email: 'eve.unverified@example.com', email_verified: false, name: 'Eve' },
};

describe('Sign in with Google (OpenID Connect, code + PKCE) against a local provider', () => {
  let packyard: RunningPackyard;
  let server: Server;
  let issuer: string;
  let signsInNext = 'google-ada';

  beforeAll(async () => {
    // the provider's address goes into packyard's configuration and packyard's callback into
    // the provider's client: listen first, start packyard, then build the provider
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    packyard = await startPackyard({ env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET } });

    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [`${packyard.url}/api/v1/auth/oidc/google/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, ...PEOPLE[id] }) }),
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      cookies: { keys: ['oidc-test-cookie-key'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
    });
    server.on('request', async (req, res) => {
      if (!req.url?.startsWith('/interaction/')) return provider.callback()(req, res);
      // the login and consent screens, answered as the chosen person would
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId: signsInNext } }, { mergeWithLastSubmission: false });
      } else {
        const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: CLIENT_ID });
        grant.addOIDCScope(String(details.params.scope));
        await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
      }
    });
  });
  afterAll(async () => {
    await packyard?.dispose();
    server?.close();
  });

  /** follows the redirects like a browser (cookies for the provider kept by hand) until packyard sends it to the console */
  async function signInWithGoogle(person: string, returnTo: string) {
    signsInNext = person;
    const cookies = new Map<string, string>();
    let url = `${packyard.url}/api/v1/auth/oidc/google/start?returnTo=${encodeURIComponent(returnTo)}`;
    let callback = '';
    for (let hop = 0; hop < 20; hop++) {
      const toProvider = url.startsWith(issuer);
      const headers: Record<string, string> = toProvider && cookies.size ? { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } : {};
      const response = await fetch(url, { redirect: 'manual', headers });
      if (toProvider) {
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const [name, ...value] = pair.split('=');
          cookies.set(name.trim(), value.join('='));
        }
      }
      const location = response.headers.get('location');
      if (!location || ![302, 303].includes(response.status)) throw new Error(`hop ${hop} to ${url}: ${response.status} ${await response.text()}`);
      const next = new URL(location, url);
      if (next.origin === packyard.url && next.pathname === '/api/v1/auth/oidc/google/callback') callback = next.toString();
      if (next.origin === packyard.url && !next.pathname.startsWith('/api/')) return { landing: next, callback };
      url = next.toString();
    }
    throw new Error('too many redirects');
  }

  const sessionOf = (landing: URL) => {
    expect(landing.pathname).toBe('/login/callback');
    const fragment = new URLSearchParams(landing.hash.slice(1));
    return { idToken: fragment.get('idToken')!, refreshToken: fragment.get('refreshToken')!, expiresIn: fragment.get('expiresIn'), returnTo: fragment.get('returnTo') };
  };
  const profileWith = (idToken: string) => fetch(`${packyard.url}/api/v1/user/profile`, { headers: { authorization: `Bearer ${idToken}` } });

  it('creates an account for a verified Google address and hands the console a working session', async () => {
    const start = await fetch(`${packyard.url}/api/v1/auth/oidc/google/start?returnTo=/workspaces`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const authorization = new URL(start.headers.get('location')!);
    expect(authorization.origin).toBe(issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('nonce')).toBeTruthy();

    const { landing } = await signInWithGoogle('google-ada', '/workspaces');
    const session = sessionOf(landing);
    expect(session.expiresIn).toBe('900');
    expect(session.returnTo).toBe('/workspaces');
    const profile = await profileWith(session.idToken);
    expect(profile.status).toBe(200);
    expect((await profile.json()).email).toBe('ada.oidc@example.com');

    const refreshed = await fetch(`${packyard.url}/api/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: session.refreshToken }),
    });
    expect(refreshed.status).toBe(200);

    // signing in again finds the same account
    const again = sessionOf((await signInWithGoogle('google-ada', '/dashboard')).landing);
    expect(JSON.parse(Buffer.from(again.idToken.split('.')[1], 'base64url').toString()).sub).toBe(
      JSON.parse(Buffer.from(session.idToken.split('.')[1], 'base64url').toString()).sub,
    );
  });

  it('links to the existing password account with the same verified address', async () => {
    const registered = await fetch(`${packyard.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'Bob.Linked@example.com', password: 'bobs-password' }),
    });
    const { user } = await registered.json();
    const session = sessionOf((await signInWithGoogle('google-bob', '/settings')).landing);
    expect(JSON.parse(Buffer.from(session.idToken.split('.')[1], 'base64url').toString()).sub).toBe(user.id);
  });

  it('refuses an address the provider has not verified, creating no account', async () => {
    const { landing } = await signInWithGoogle('google-eve', '/dashboard');
    expect(landing.pathname).toBe('/login');
    expect(landing.searchParams.get('error')).toBe('Google sign-in refused: the email address of this account is not verified');
    const register = await fetch(`${packyard.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'eve.unverified@example.com', password: 'eves-password' }),
    });
    expect(register.status).toBe(201);
  });

  it('accepts a callback only once and only paths of its own origin as returnTo', async () => {
    const { landing, callback } = await signInWithGoogle('google-ada', '//evil.example.com/steal');
    expect(sessionOf(landing).returnTo).toBe('/dashboard');
    const replay = await fetch(callback, { redirect: 'manual' });
    expect(replay.status).toBe(302);
    const failed = new URL(replay.headers.get('location')!, packyard.url);
    expect(failed.pathname).toBe('/login');
    expect(failed.searchParams.get('error')).toBe('Google sign-in expired or was already used; please try again');
  });

  it('sends the browser back to /login when the person cancels at the provider', async () => {
    const response = await fetch(`${packyard.url}/api/v1/auth/oidc/google/callback?error=access_denied&state=x`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`/login?${new URLSearchParams({ error: 'Google sign-in was cancelled' })}`);
  });
});
