import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackyard, type RunningPackyard } from '@packyard/testing';

// What someone who is not the account's owner can do to it through sign-in and registration.

let packyard: RunningPackyard;
const PASSWORD = 'correct horse battery';

/** a sign-in or registration from a client address (the program trusts X-Forwarded-For here, as behind a proxy) */
async function auth(path: 'login' | 'register', email: string, password: string, clientIp = '198.51.100.1') {
  const response = await fetch(`${packyard.url}/api/v1/auth/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp },
    body: JSON.stringify({ email, password }),
  });
  return { status: response.status, retryAfter: Number(response.headers.get('retry-after') ?? 0), body: (await response.json()) as { message: string; user: { id: string; email: string } } };
}

beforeAll(async () => {
  packyard = await startPackyard({ env: { TRUST_PROXY: 'true' } });
});

afterAll(async () => {
  await packyard?.dispose();
});

describe('sign-in throttling', () => {
  it('slows a password guesser down, more with each failure, without locking the owner out', async () => {
    const email = `owner-${randomUUID()}@example.com`;
    expect((await auth('register', email, PASSWORD)).status).toBe(201);
    const attacker = '203.0.113.66';
    const answers: { status: number; retryAfter: number }[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      const { status, retryAfter } = await auth('login', email, `guess-${attempt}`, attacker);
      answers.push({ status, retryAfter });
      if (status === 429) await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    }
    console.log(`12 wrong passwords from one client: ${answers.map((a) => (a.status === 429 ? `429(${a.retryAfter}s)` : a.status)).join(' ')}`);
    // a few honest typos cost nothing; then every guess waits, and longer each time
    expect(answers.slice(0, 5).every((a) => a.status === 401)).toBe(true);
    const waits = answers.filter((a) => a.status === 429).map((a) => a.retryAfter);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.at(-1)!).toBeGreaterThan(waits[0]);

    // the owner, from their own client, is not held up by any of it
    const owner = await auth('login', email, PASSWORD, '192.0.2.10');
    expect(owner.status).toBe(200);
    expect(owner.body.user.email).toBe(email);
    // while the guesser's client still waits its turn, right password or not
    expect((await auth('login', email, 'one-more-guess', attacker)).status).toBe(401);
    expect((await auth('login', email, PASSWORD, attacker)).status).toBe(429);
  }, 120_000);
});

describe('e-mail addresses', () => {
  it('refuses control characters, angle brackets and other characters no address has, with 400', async () => {
    for (const email of ['a\u0000b@example.com', 'a\nb@example.com', '<script>@x.com', 'a<b@example.com', 'a>b@example.com', 'a"b@example.com', 'a,b@example.com', 'a;b@example.com', 'a\u202eb@example.com']) {
      const answer = await auth('register', email, PASSWORD);
      expect({ email, status: answer.status, message: answer.body.message }).toEqual({ email, status: 400, message: 'Email must be a valid email address' });
    }
  });

  it('takes full-width, look-alike and upper-case forms of an address as that same account', async () => {
    const local = `alice${randomUUID().slice(0, 8)}`;
    const registered = await auth('register', `${local}@example.com`, PASSWORD);
    expect(registered.status).toBe(201);
    const fullWidth = [...`${local}@example.com`].map((c) => (c >= '!' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');
    for (const variant of [fullWidth, `${local.toUpperCase()}@EXAMPLE.COM`, `${local}@ｅｘａｍｐｌｅ.com`]) {
      const again = await auth('register', variant, PASSWORD);
      expect({ variant, status: again.status }).toEqual({ variant, status: 409 });
      const signedIn = await auth('login', variant, PASSWORD);
      expect({ variant, status: signedIn.status, user: signedIn.body.user }).toEqual({ variant, status: 200, user: registered.body.user });
    }
    expect(registered.body.user.email).toBe(`${local}@example.com`);
  });
});
