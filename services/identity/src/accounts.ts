import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  handleCommand,
  invalid,
  loadAggregate,
  notFound,
  PackyardError,
  unauthenticated,
  type Caller,
  type EventSourcing,
} from '@packyard/platform';
import type { Session } from '@packyard/proto/packyard/identity/v1/identity';
import { ID_TOKEN_TTL_SECONDS, type IdTokenSigner } from './keys/id-token.signer';
import { ProgressiveDelay } from './limits/progressive-delay';
import { SlidingWindowLimiter } from './limits/sliding-window.limiter';
import type { OidcClient } from './oidc/oidc.client';
import { USER_TOKENS, type UserTokenDocument } from './projections/user-tokens.projection';
import type { RefreshTokenStore } from './sessions/refresh-token.store';
import { validateEmail, validateNewPassword } from './user/credentials';
import { emailClaimDecider, emailClaimStream, normalizeEmail } from './user/email-claim.decider';
import { hashPassword, verifyPassword } from './user/password-hasher';
import { userDecider, type UserCommand, type UserState } from './user/user.decider';
import { isUserIntegrationEvent, userStream, type ProfileSettings } from './user/user.events';

export interface AccountLimits {
  loginFailuresBeforeDelay: number;
  loginMaxDelaySeconds: number;
  loginFailureWindowSeconds: number;
  authAttemptsPerIp: number;
}

type RegisteredUser = Extract<UserState, { status: 'registered' }>;

// recognisable like the token module's values (pyd_rt_, pyd_at_)
const USER_TOKEN_PREFIX = 'pyd_uk_';
/** a key's last use is written at most this often, not on every request */
const LAST_USED_RESOLUTION_MS = 60_000;
const INVALID_CREDENTIALS = 'Invalid email or password';
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const rateLimited = (message: string, retryAfterSeconds: number) =>
  new PackyardError('RATE_LIMITED', 'PACKYARD_IDENTITY_RATE_LIMITED', message, { retryAfterSeconds });

/**
 * Identity's use cases: registration and sign-in (password or OpenID Connect), sessions
 * (ID token + rotating refresh token), the profile and the user's API keys. The user
 * aggregate decides; this layer hashes, rate-limits, signs and talks to the stores.
 */
export function createAccounts(deps: { es: EventSourcing; signer: IdTokenSigner; refreshTokens: RefreshTokenStore; oidc: OidcClient; limits: AccountLimits }) {
  const { es, signer, refreshTokens, oidc, limits } = deps;
  const userTokens = es.readModels.collection<UserTokenDocument>(USER_TOKENS);
  // when keys were last used changes with every request: kept beside the read models, not as events
  const tokenUsage = es.readModels.collection<{ id: string; lastUsed: string }>('user_token_usage');
  const usageWritten = new Map<string, number>();
  // per account and client address: a guesser is slowed down, the owner elsewhere is not locked out
  const guessing = new ProgressiveDelay(limits.loginFailuresBeforeDelay, limits.loginMaxDelaySeconds * 1000, limits.loginFailureWindowSeconds * 1000);
  const attemptsPerIp = new SlidingWindowLimiter(limits.authAttemptsPerIp, 60_000);

  const now = () => new Date().toISOString();

  const execute = async (userId: string, command: UserCommand, caller?: Caller) => {
    const result = await handleCommand(es.events, userStream(userId), userDecider, command, {
      isIntegration: isUserIntegrationEvent,
      metadata: caller ? { caller } : undefined,
    });
    // a deleted key must stop working the moment its deletion is answered
    if (result.newEvents.length) await es.caughtUp(result.lastPosition);
    return result.state as RegisteredUser;
  };

  const load = async (userId: string) => (await loadAggregate(es.events, userStream(userId), userDecider)).state;

  /** the account an address belongs to, if any */
  const findByEmail = async (email: string): Promise<RegisteredUser | undefined> => {
    const { state } = await loadAggregate(es.events, emailClaimStream(email), emailClaimDecider);
    if (state.status !== 'claimed') return undefined;
    const user = await load(state.userId);
    return user.status === 'registered' ? user : undefined;
  };

  /** the id of the account for `email`: a fresh one, or the one an earlier claim reserved */
  const claimEmail = async (email: string) => {
    const { state } = await handleCommand(es.events, emailClaimStream(email), emailClaimDecider, { type: 'ClaimEmail', email, userId: randomUUID(), at: now() });
    if (state.status !== 'claimed') throw new Error('e-mail claim was not stored');
    return state.userId;
  };

  const session = async (user: { userId: string; email: string }, refreshToken?: string): Promise<Session> => ({
    idToken: await signer.sign({ id: user.userId, email: user.email }),
    refreshToken: refreshToken ?? (await refreshTokens.start(user.userId)),
    expiresIn: ID_TOKEN_TTL_SECONDS,
    user: { id: user.userId, email: user.email },
  });

  const countAttempt = (clientIp: string) => {
    const decision = attemptsPerIp.hit(clientIp || 'unknown');
    if (!decision.allowed) throw rateLimited('Too many sign-in attempts from this address; try again later', decision.retryAfterSeconds);
  };

  const signedIn = (caller: Caller) => {
    if (!caller.userId) throw unauthenticated();
    return caller.userId;
  };

  const registeredUser = async (caller: Caller): Promise<RegisteredUser> => {
    const user = await load(signedIn(caller));
    if (user.status !== 'registered') throw notFound('PACKYARD_IDENTITY_USER_NOT_FOUND', 'User not found');
    return user;
  };

  /** only a person signed in (ID token) may change credentials, never an API token */
  const personally = (caller: Caller, action: string) => {
    if (caller.kind !== 'id_token') throw new PackyardError('FORBIDDEN', 'PACKYARD_AUTH_FORBIDDEN', `Only a signed-in user can ${action}`);
  };

  return {
    jwks: () => signer.jwks(),

    async register(request: { email: string; password: string; clientIp: string }) {
      countAttempt(request.clientIp);
      const email = validateEmail(request.email);
      validateNewPassword(request.password);
      const passwordHash = await hashPassword(request.password);
      const userId = await claimEmail(email);
      const user = await execute(userId, { type: 'RegisterUser', userId, email, passwordHash, at: now() });
      return session(user);
    },

    async login(request: { email: string; password: string; clientIp: string }) {
      countAttempt(request.clientIp);
      const account = normalizeEmail(request.email);
      if (!account || !request.password) throw invalid('PACKYARD_IDENTITY_CREDENTIALS_REQUIRED', 'Email and password are required');
      const guesser = `${account}|${request.clientIp}`;
      const blocked = guessing.check(guesser);
      if (!blocked.allowed) throw rateLimited('Too many failed sign-ins for this account from here; try again shortly', blocked.retryAfterSeconds);
      const user = await findByEmail(account);
      if (!(await verifyPassword(user?.passwordHash ?? null, request.password)) || !user) {
        guessing.recordFailure(guesser);
        throw unauthenticated(INVALID_CREDENTIALS);
      }
      guessing.reset(guesser);
      return session(user);
    },

    async refresh(refreshToken: string) {
      if (!refreshToken) throw invalid('PACKYARD_IDENTITY_REFRESH_TOKEN_REQUIRED', 'refreshToken is required');
      const rotated = await refreshTokens.rotate(refreshToken);
      const user = await load(rotated.userId);
      if (user.status !== 'registered') throw unauthenticated('Invalid or expired refresh token');
      return session(user, rotated.refreshToken);
    },

    async logout(refreshToken: string) {
      if (!refreshToken) throw invalid('PACKYARD_IDENTITY_REFRESH_TOKEN_REQUIRED', 'refreshToken is required');
      await refreshTokens.revoke(refreshToken);
    },

    async startOidc(request: { provider: string; returnTo: string; redirectUri: string }) {
      if (request.provider !== 'google') throw notFound('PACKYARD_IDENTITY_OIDC_PROVIDER_NOT_FOUND', `Unknown sign-in provider ${request.provider}`);
      if (!oidc.configured) throw new PackyardError('UNAVAILABLE', 'PACKYARD_IDENTITY_OIDC_NOT_CONFIGURED', 'Google sign-in is not configured');
      return oidc.start({ returnTo: request.returnTo, redirectUri: request.redirectUri });
    },

    /** creates the account, or links an existing one, by the provider's verified e-mail address */
    async finishOidc(request: { state: string; code: string; redirectUri: string }) {
      const identity = await oidc.finish(request);
      const link = { issuer: identity.issuer, subject: identity.subject };
      const userId = await claimEmail(identity.email);
      const existing = await load(userId);
      const user =
        existing.status === 'registered'
          ? await execute(userId, { type: 'LinkIdentity', ...link, email: identity.email, at: now() })
          : await execute(userId, { type: 'RegisterUser', userId, email: identity.email, passwordHash: null, identity: link, at: now() });
      return { session: await session(user), returnTo: identity.returnTo };
    },

    async profile(caller: Caller) {
      const user = await registeredUser(caller);
      return { email: user.email, ...user.profile };
    },

    async updateProfile(caller: Caller, changes: Partial<ProfileSettings> & { email?: string }) {
      const user = await execute(signedIn(caller), { type: 'UpdateProfile', changes, at: now() }, caller);
      return { email: user.email, ...user.profile };
    },

    async security(caller: Caller) {
      const user = await registeredUser(caller);
      return { twoFactorEnabled: false, lastPasswordChange: user.passwordChangedAt };
    },

    async changePassword(caller: Caller, request: { currentPassword: string; newPassword: string }) {
      personally(caller, 'change the password');
      const user = await registeredUser(caller);
      // 400, not 401: a 401 would sign the console out (spec §4)
      if (user.passwordHash && !(await verifyPassword(user.passwordHash, request.currentPassword))) {
        throw invalid('PACKYARD_IDENTITY_PASSWORD_INCORRECT', 'Current password is incorrect');
      }
      validateNewPassword(request.newPassword);
      const changed = await execute(user.userId, { type: 'ChangePassword', passwordHash: await hashPassword(request.newPassword), at: now() }, caller);
      await refreshTokens.revokeAll(user.userId);
      return session(changed);
    },

    async listTokens(caller: Caller) {
      const user = await registeredUser(caller);
      return Promise.all(user.tokens.map(async (token) => ({ ...token, lastUsed: (await tokenUsage.get(token.id))?.lastUsed ?? null })));
    },

    async createToken(caller: Caller, request: { name: string; scopes: string[] }) {
      personally(caller, 'create API keys');
      const token = `${USER_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const tokenId = randomUUID();
      const user = await execute(signedIn(caller), { type: 'CreateUserToken', tokenId, name: request.name, scopes: request.scopes, tokenHash: hashToken(token), at: now() }, caller);
      return { ...user.tokens.find((candidate) => candidate.id === tokenId)!, lastUsed: null, token };
    },

    async deleteToken(caller: Caller, tokenId: string) {
      await execute(signedIn(caller), { type: 'DeleteUserToken', tokenId, at: now() }, caller);
      await tokenUsage.delete(tokenId);
    },

    /** a user API key presented as a bearer credential */
    async validateToken(token: string) {
      const found = token.startsWith(USER_TOKEN_PREFIX) ? await userTokens.get(hashToken(token)) : undefined;
      if (!found) return { valid: false, userId: '', tokenId: '', scopes: [] };
      const nowMs = Date.now();
      if (nowMs - (usageWritten.get(found.tokenId) ?? 0) >= LAST_USED_RESOLUTION_MS) {
        usageWritten.set(found.tokenId, nowMs);
        await tokenUsage.upsert({ id: found.tokenId, lastUsed: new Date(nowMs).toISOString() });
      }
      return { valid: true, userId: found.userId, tokenId: found.tokenId, scopes: found.scopes };
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
