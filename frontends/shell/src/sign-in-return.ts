// Where the browser goes after signing in: the page the guard remembered, else /dashboard.

const RETURN_TO_KEY = 'packyard.returnTo';
const DEFAULT_RETURN_PATH = '/dashboard';

/** Only same-site paths, so a crafted link cannot send a fresh session elsewhere. */
export function safeReturnPath(candidate: unknown): string {
  if (typeof candidate !== 'string' || !candidate.startsWith('/') || candidate.startsWith('//') || candidate.startsWith('/login')) {
    return DEFAULT_RETURN_PATH;
  }
  return candidate;
}

/** The origin the guard put into the router state. */
export function returnPathFrom(state: unknown): string {
  return safeReturnPath((state as { from?: unknown } | null)?.from);
}

export function googleSignInUrl(returnTo: string): string {
  return `/api/v1/auth/oidc/google/start?returnTo=${encodeURIComponent(safeReturnPath(returnTo))}`;
}

/** Kept across the round trip to Google in case the server does not echo returnTo back. */
export function rememberReturnTo(path: string): void {
  sessionStorage.setItem(RETURN_TO_KEY, safeReturnPath(path));
}

export function takeRememberedReturnTo(): string {
  const path = sessionStorage.getItem(RETURN_TO_KEY);
  sessionStorage.removeItem(RETURN_TO_KEY);
  return safeReturnPath(path);
}

export interface CallbackTokens {
  idToken: string;
  refreshToken: string;
  expiresIn: number;
  returnTo?: string;
}

/** Reads `#idToken=…&refreshToken=…&expiresIn=…` from the sign-in callback. */
export function parseCallbackFragment(hash: string): CallbackTokens | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const idToken = params.get('idToken');
  const refreshToken = params.get('refreshToken');
  const expiresIn = Number(params.get('expiresIn'));
  if (!idToken || !refreshToken || !(expiresIn > 0)) return undefined;
  return { idToken, refreshToken, expiresIn, returnTo: params.get('returnTo') ?? undefined };
}
