import { apiErrorFrom } from '../api/api-error';
import { API_BASE_PATH } from '../api/api-client';

/** What the auth endpoints answer (DESIGN §5). */
export interface AuthAnswer {
  idToken: string;
  refreshToken: string;
  expiresIn: number;
  user?: { id: string; email: string };
}

/** What sign-in answers for an account with two-factor authentication. */
interface TwoFactorChallenge {
  twoFactorRequired: true;
  challenge: string;
}

export interface SessionState {
  status: 'checking' | 'signed-in' | 'signed-out';
  user?: { id: string; email: string };
}

interface StoredSession {
  idToken: string;
  refreshToken: string;
  expiresAt: number;
  user?: { id: string; email: string };
}

export interface Session {
  /** The initial authentication check: restores a stored session, refreshing it if stale. */
  start(): Promise<void>;
  /** Signs in, or answers the challenge of an account that asks for a second factor (then completeTwoFactor). */
  signIn(email: string, password: string): Promise<{ twoFactorChallenge?: string }>;
  /** The second step: a code from the authenticator app or a recovery code. */
  completeTwoFactor(challenge: string, code: string): Promise<void>;
  register(email: string, password: string): Promise<void>;
  /** Tokens handed back by the Google sign-in redirect. */
  accept(answer: AuthAnswer): void;
  /** A fresh ID token (refreshed first when close to expiry), or undefined when signed out. */
  getIdToken(): Promise<string | undefined>;
  /** Revokes the refresh token; a failure is only logged (spec §8). */
  signOut(): Promise<void>;
  /** Forgets the session locally, e.g. after the API answered 401. */
  clear(): void;
  getState(): SessionState;
  subscribe(listener: () => void): () => void;
}

export const SESSION_STORAGE_KEY = 'packyard.session';
/** Refresh this long before the ID token expires, so no call goes out with a dead token. */
export const REFRESH_MARGIN_MS = 60_000;

export interface SessionDependencies {
  fetch?: typeof fetch;
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  now?: () => number;
  baseUrl?: string;
}

/** The user inside an ID token, for sessions that start from a redirect without a user object. */
function userFromIdToken(idToken: string): StoredSession['user'] {
  try {
    const payload = JSON.parse(atob(idToken.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    return { id: String(payload.sub ?? ''), email: String(payload.email ?? '') };
  } catch {
    return undefined;
  }
}

export function createSession(deps: SessionDependencies = {}): Session {
  const doFetch = deps.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const storage = deps.storage ?? globalThis.localStorage;
  const now = deps.now ?? Date.now;
  const baseUrl = deps.baseUrl ?? API_BASE_PATH;
  const listeners = new Set<() => void>();
  let state: SessionState = { status: 'checking' };
  let stored: StoredSession | undefined;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  let refreshing: Promise<void> | undefined;

  function publish(next: SessionState) {
    state = next;
    for (const listener of listeners) listener();
  }

  async function postAuth(path: string, body: unknown): Promise<AuthAnswer | TwoFactorChallenge | Record<string, never>> {
    const response = await doFetch(`${baseUrl}/v1/auth/${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      credentials: 'omit',
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const payload = text ? JSON.parse(text) : {};
    if (!response.ok) throw apiErrorFrom(response.status, response.statusText, payload);
    return payload;
  }

  function scheduleRefresh() {
    clearTimeout(refreshTimer);
    if (!stored) return;
    const delay = Math.max(stored.expiresAt - now() - REFRESH_MARGIN_MS, 0);
    refreshTimer = setTimeout(() => void refresh().catch(() => undefined), delay);
  }

  function keep(answer: AuthAnswer) {
    stored = {
      idToken: answer.idToken,
      refreshToken: answer.refreshToken,
      expiresAt: now() + answer.expiresIn * 1000,
      user: answer.user ?? stored?.user ?? userFromIdToken(answer.idToken),
    };
    storage.setItem(SESSION_STORAGE_KEY, JSON.stringify(stored));
    scheduleRefresh();
    publish({ status: 'signed-in', user: stored.user });
  }

  function clear() {
    clearTimeout(refreshTimer);
    stored = undefined;
    storage.removeItem(SESSION_STORAGE_KEY);
    publish({ status: 'signed-out' });
  }

  function refresh(): Promise<void> {
    if (!stored) return Promise.resolve();
    refreshing ??= postAuth('refresh', { refreshToken: stored.refreshToken })
      .then((answer) => keep(answer as AuthAnswer))
      .catch((error) => {
        clear();
        throw error;
      })
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  }

  function isStale(session: StoredSession) {
    return session.expiresAt - now() <= REFRESH_MARGIN_MS;
  }

  return {
    async start() {
      const text = storage.getItem(SESSION_STORAGE_KEY);
      try {
        stored = text ? (JSON.parse(text) as StoredSession) : undefined;
      } catch {
        stored = undefined;
      }
      if (!stored?.refreshToken) return clear();
      if (!isStale(stored)) {
        scheduleRefresh();
        return publish({ status: 'signed-in', user: stored.user });
      }
      await refresh().catch(() => undefined);
    },
    async signIn(email, password) {
      const answer = await postAuth('login', { email, password });
      if ('twoFactorRequired' in answer) return { twoFactorChallenge: answer.challenge };
      keep(answer as AuthAnswer);
      return {};
    },
    async completeTwoFactor(challenge, code) {
      keep((await postAuth('login/two-factor', { challenge, code })) as AuthAnswer);
    },
    async register(email, password) {
      keep((await postAuth('register', { email, password })) as AuthAnswer);
    },
    accept: keep,
    async getIdToken() {
      if (!stored) return undefined;
      if (isStale(stored)) await refresh();
      return stored?.idToken;
    },
    async signOut() {
      const refreshToken = stored?.refreshToken;
      clear();
      if (!refreshToken) return;
      try {
        await postAuth('logout', { refreshToken });
      } catch (error) {
        console.error('Sign-out failed', error);
      }
    },
    clear,
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
