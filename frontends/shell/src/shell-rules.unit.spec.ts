import { describe, expect, it } from 'vitest';
import { isNavigationItemActive } from './navigation-rules';
import { googleSignInUrl, parseCallbackFragment, returnPathFrom, safeReturnPath } from './sign-in-return';

describe('sidebar active entry', () => {
  const dashboard = { to: '/dashboard', exact: true };
  const workspaces = { to: '/workspaces' };
  it('marks Dashboard only on an exact match and the others on a path prefix', () => {
    expect(isNavigationItemActive(dashboard, '/dashboard')).toBe(true);
    expect(isNavigationItemActive(dashboard, '/dashboard/extra')).toBe(false);
    expect(isNavigationItemActive(workspaces, '/workspaces')).toBe(true);
    expect(isNavigationItemActive(workspaces, '/workspaces/w1/repos/r1/packages')).toBe(true);
    expect(isNavigationItemActive(workspaces, '/workspacesque')).toBe(false);
  });
});

describe('returning after sign-in', () => {
  it('goes back to the remembered page, else to /dashboard, never off-site', () => {
    expect(returnPathFrom({ from: '/workspaces/w1/repos?x=1' })).toBe('/workspaces/w1/repos?x=1');
    expect(returnPathFrom(null)).toBe('/dashboard');
    expect(safeReturnPath('//evil.example/')).toBe('/dashboard');
    expect(safeReturnPath('https://evil.example/')).toBe('/dashboard');
    expect(safeReturnPath('/login')).toBe('/dashboard');
  });
  it('starts Google sign-in at the API with the return path', () => {
    expect(googleSignInUrl('/tokens')).toBe('/api/v1/auth/oidc/google/start?returnTo=%2Ftokens');
  });
  it('reads the tokens from the callback fragment', () => {
    expect(parseCallbackFragment('#idToken=a.b.c&refreshToken=r1&expiresIn=900')).toEqual({ idToken: 'a.b.c', refreshToken: 'r1', expiresIn: 900, returnTo: undefined });
    expect(parseCallbackFragment('#idToken=a.b.c&expiresIn=900')).toBeUndefined();
    expect(parseCallbackFragment('')).toBeUndefined();
  });
});
