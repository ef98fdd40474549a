import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSession, SESSION_STORAGE_KEY } from './session';

function memoryStorage(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial));
  return {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
    removeItem: (key: string) => void values.delete(key),
    values,
  };
}

const answer = (idToken: string) => ({ idToken, refreshToken: `r-${idToken}`, expiresIn: 900, user: { id: 'u1', email: 'a@b.c' } });

function fetchAnswering(routes: Record<string, () => Response>) {
  return vi.fn(async (url: RequestInfo | URL, _init?: RequestInit) => {
    const path = String(url);
    const route = Object.keys(routes).find((suffix) => path.endsWith(suffix));
    return route ? routes[route]() : new Response('{}', { status: 404 });
  });
}

const json = (status: number, body: unknown) => () => new Response(JSON.stringify(body), { status });

afterEach(() => vi.useRealTimers());

describe('session', () => {
  it('signs in, keeps the tokens across reloads and hands out the ID token', async () => {
    const storage = memoryStorage();
    const fetchStub = fetchAnswering({ '/v1/auth/login': json(200, answer('id1')) });
    const session = createSession({ fetch: fetchStub as unknown as typeof fetch, storage });
    await session.start();
    expect(session.getState().status).toBe('signed-out');
    await session.signIn('a@b.c', 'secret1');
    expect(session.getState()).toEqual({ status: 'signed-in', user: { id: 'u1', email: 'a@b.c' } });
    expect(await session.getIdToken()).toBe('id1');

    const reloaded = createSession({ fetch: fetchStub as unknown as typeof fetch, storage });
    await reloaded.start();
    expect(reloaded.getState().status).toBe('signed-in');
    expect(fetchStub).toHaveBeenCalledTimes(1);
    session.clear();
    reloaded.clear();
  });

  it('refreshes a stored session that is about to expire before using it', async () => {
    const storage = memoryStorage({
      [SESSION_STORAGE_KEY]: JSON.stringify({ idToken: 'old', refreshToken: 'r-old', expiresAt: Date.now() + 10_000 }),
    });
    const fetchStub = fetchAnswering({ '/v1/auth/refresh': json(200, answer('new')) });
    const session = createSession({ fetch: fetchStub as unknown as typeof fetch, storage });
    await session.start();
    expect(JSON.parse(String(fetchStub.mock.calls[0][1]?.body))).toEqual({ refreshToken: 'r-old' });
    expect(await session.getIdToken()).toBe('new');
    session.clear();
  });

  it('refreshes on a timer ahead of expiry', async () => {
    vi.useFakeTimers();
    const fetchStub = fetchAnswering({
      '/v1/auth/login': json(200, { ...answer('first'), expiresIn: 120 }),
      '/v1/auth/refresh': json(200, answer('second')),
    });
    const session = createSession({ fetch: fetchStub as unknown as typeof fetch, storage: memoryStorage() });
    await session.signIn('a@b.c', 'secret1');
    await vi.advanceTimersByTimeAsync(59_000);
    expect(fetchStub).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(fetchStub).toHaveBeenCalledTimes(2);
    expect(await session.getIdToken()).toBe('second');
    session.clear();
  });

  it('ends up signed out when the stored session cannot be refreshed', async () => {
    const storage = memoryStorage({
      [SESSION_STORAGE_KEY]: JSON.stringify({ idToken: 'old', refreshToken: 'r-old', expiresAt: 0 }),
    });
    const fetchStub = fetchAnswering({ '/v1/auth/refresh': json(401, { message: 'revoked' }) });
    const session = createSession({ fetch: fetchStub as unknown as typeof fetch, storage });
    await session.start();
    expect(session.getState().status).toBe('signed-out');
    expect(storage.values.has(SESSION_STORAGE_KEY)).toBe(false);
  });

  it('stays signed out on a two-factor challenge and signs in with the code', async () => {
    const fetchStub = fetchAnswering({ '/v1/auth/login': json(200, { twoFactorRequired: true, challenge: 'c1' }), '/v1/auth/login/two-factor': json(200, answer('id2')) });
    const session = createSession({ fetch: fetchStub as unknown as typeof fetch, storage: memoryStorage() });
    await session.start();
    expect(await session.signIn('a@b.c', 'secret1')).toEqual({ twoFactorChallenge: 'c1' });
    expect(session.getState().status).toBe('signed-out');
    await session.completeTwoFactor('c1', '123456');
    expect(session.getState().status).toBe('signed-in');
    expect(JSON.parse(String(fetchStub.mock.calls.at(-1)![1]!.body))).toEqual({ challenge: 'c1', code: '123456' });
    expect(await session.getIdToken()).toBe('id2');
  });

  it('rejects a failed sign-in with the server message', async () => {
    const fetchStub = fetchAnswering({ '/v1/auth/login': json(401, { status: 401, message: 'Invalid email or password' }) });
    const session = createSession({ fetch: fetchStub as unknown as typeof fetch, storage: memoryStorage() });
    await expect(session.signIn('a@b.c', 'nope')).rejects.toMatchObject({ message: 'Invalid email or password' });
  });

  it('revokes the refresh token on sign-out and only logs a failure', async () => {
    const storage = memoryStorage();
    const fetchStub = fetchAnswering({
      '/v1/auth/login': json(200, answer('id1')),
      '/v1/auth/logout': () => { throw new TypeError('offline'); },
    });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const session = createSession({ fetch: fetchStub as unknown as typeof fetch, storage });
    await session.signIn('a@b.c', 'secret1');
    await session.signOut();
    expect(String(fetchStub.mock.calls[1][0])).toBe('/api/v1/auth/logout');
    expect(JSON.parse(String(fetchStub.mock.calls[1][1]?.body))).toEqual({ refreshToken: 'r-id1' });
    expect(session.getState().status).toBe('signed-out');
    expect(storage.values.size).toBe(0);
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });
});
