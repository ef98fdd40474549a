import { randomUUID } from 'node:crypto';
import type { RunningPackyard } from './program';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers as loose JSON and assert on them
type Json = any;

export interface ApiAnswer<T = Json> {
  status: number;
  body: T;
}

export interface ApiSession {
  email: string;
  /** the bearer sent: an ID token, or an account access token given to `as` */
  bearer: string;
  call<T = Json>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>>;
  /** the same user calling with another bearer (say, an account access token) */
  as(bearer: string): ApiSession;
}

/** Calls `/api/v1` of a running program the way the console does (JSON, bearer). */
export function apiSession(packyard: Pick<RunningPackyard, 'url'>, bearer: string, email = ''): ApiSession {
  return {
    email,
    bearer,
    async call(method, path, body) {
      const response = await fetch(`${packyard.url}/api/v1${path}`, {
        method,
        headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    as: (other) => apiSession(packyard, other, email),
  };
}

/** the password of every user registerUser makes */
const PASSWORD = 'correct horse battery';

/** Registers a fresh user (`POST /api/v1/auth/register`) and returns a session with its ID token. */
export function registerUser(packyard: Pick<RunningPackyard, 'url'>, email = `user-${randomUUID()}@example.com`): Promise<ApiSession> {
  return sessionFrom(packyard, 'register', email);
}

/** Signs in again (`POST /api/v1/auth/login`) as a user registerUser made. */
export function signIn(packyard: Pick<RunningPackyard, 'url'>, email: string): Promise<ApiSession> {
  return sessionFrom(packyard, 'login', email);
}

async function sessionFrom(packyard: Pick<RunningPackyard, 'url'>, action: 'register' | 'login', email: string): Promise<ApiSession> {
  const response = await fetch(`${packyard.url}/api/v1/auth/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (response.status !== 201 && response.status !== 200) throw new Error(`${action} answered ${response.status}: ${await response.text()}`);
  const { idToken } = (await response.json()) as { idToken: string };
  return apiSession(packyard, idToken, email);
}
