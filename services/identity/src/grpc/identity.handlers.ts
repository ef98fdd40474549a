import type { ServiceImplementation } from 'nice-grpc';
import type { CallerContext } from '@packyard/platform';
import type { IdentityServiceDefinition, UserToken } from '@packyard/proto/packyard/identity/v1/identity';
import type { Accounts } from '../accounts';
import type { IdentityMetrics } from '../metrics';
import type { UserToken as StoredUserToken } from '../user/user.decider';

const toUserToken = (token: StoredUserToken & { lastUsed: string | null }): UserToken => ({
  id: token.id,
  name: token.name,
  scopes: token.scopes,
  createdAt: token.createdAt,
  lastUsed: token.lastUsed ?? '',
  token: '',
});

export const identityHandlers = (accounts: Accounts, metrics: IdentityMetrics): ServiceImplementation<typeof IdentityServiceDefinition, CallerContext> => ({
  register: (request) => metrics.signIn('register', () => accounts.register(request)),
  login: (request) => metrics.signIn('password', () => accounts.login(request)),
  refresh: (request) => metrics.signIn('refresh', () => accounts.refresh(request.refreshToken, request)),
  logout: async (request) => {
    await accounts.logout(request.refreshToken);
    return {};
  },
  startOidc: async (request) => ({ authorizationUrl: await accounts.startOidc(request) }),
  finishOidc: (request) => metrics.signIn('oidc', () => accounts.finishOidc(request)),
  getJwks: async () => ({ json: JSON.stringify(accounts.jwks()) }),
  getProfile: (_request, { caller }) => accounts.profile(caller),
  updateProfile: (request, { caller }) => accounts.updateProfile(caller, request),
  getSecurity: async (_request, { caller }) => {
    const security = await accounts.security(caller);
    return { twoFactorEnabled: security.twoFactorEnabled, lastPasswordChange: security.lastPasswordChange ?? '' };
  },
  changePassword: (request, { caller }) => accounts.changePassword(caller, request),
  listUserTokens: async (_request, { caller }) => ({ tokens: (await accounts.listTokens(caller)).map(toUserToken) }),
  createUserToken: async (request, { caller }) => {
    const created = await accounts.createToken(caller, request);
    return { ...toUserToken(created), token: created.token };
  },
  deleteUserToken: async (request, { caller }) => {
    await accounts.deleteToken(caller, request.id);
    return {};
  },
  validateUserToken: (request) => accounts.validateToken(request.token),
  getSignInOptions: async () => accounts.signInOptions(),
  listSessions: async (_request, { caller }) => ({
    sessions: (await accounts.sessions(caller)).map((entry) => ({
      ...entry,
      createdAt: new Date(entry.createdAt).toISOString(),
      lastUsedAt: new Date(entry.lastUsedAt).toISOString(),
    })),
  }),
  revokeSession: async (request, { caller }) => {
    await accounts.revokeSession(caller, request.id);
    return {};
  },
  revokeOtherSessions: async (_request, { caller }) => {
    await accounts.revokeOtherSessions(caller);
    return {};
  },
  completeTwoFactorLogin: (request) => metrics.signIn('two-factor', () => accounts.completeTwoFactorLogin(request)),
  setupTwoFactor: (_request, { caller }) => accounts.setupTwoFactor(caller),
  enableTwoFactor: async (request, { caller }) => ({ codes: await accounts.enableTwoFactor(caller, request.code) }),
  disableTwoFactor: async (request, { caller }) => {
    await accounts.disableTwoFactor(caller, request.code);
    return {};
  },
  requestPasswordReset: async (request) => {
    await accounts.requestPasswordReset(request);
    return {};
  },
  resetPassword: async (request) => {
    await accounts.resetPassword(request);
    return {};
  },
  deleteAccount: async (request, { caller }) => {
    await accounts.deleteAccount(caller, request.confirmation);
    return {};
  },
});
