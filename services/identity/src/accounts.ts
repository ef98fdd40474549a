import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  conflict,
  handleCommand,
  invalid,
  loadAggregate,
  notFound,
  PackyardError,
  unauthenticated,
  type Caller,
  type EventSourcing,
} from '@packyard/platform';
import type { SecretBox } from '@packyard/platform/crypto/index';
import type { Mailer } from './adapters/mailer';
import type { Session } from '@packyard/proto/packyard/identity/v1/identity';
import { ID_TOKEN_TTL_SECONDS, type IdTokenSigner } from './keys/id-token.signer';
import { ProgressiveDelay } from './limits/progressive-delay';
import { SlidingWindowLimiter } from './limits/sliding-window.limiter';
import { matchTotp, newTotpSecret, otpauthUri } from './two-factor/totp';
import type { OidcClient } from './oidc/oidc.client';
import { USER_TOKENS, type UserTokenDocument } from './projections/user-tokens.projection';
import type { Device, RefreshTokenStore } from './sessions/refresh-token.store';
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
const TOTP_ISSUER = 'Packyard';
const TOTP_SEAL_CONTEXT = 'identity/totp-secret';
const TWO_FACTOR_SETUP_TTL_MS = 10 * 60_000;
const TWO_FACTOR_CHALLENGE_TTL_MS = 5 * 60_000;
const TWO_FACTOR_ATTEMPTS = 5;
const RECOVERY_CODES = 10;
const INVALID_CODE = 'Invalid authentication code';
/** xxxxx-xxxxx from an alphabet without look-alikes; recovery codes are typed by hand */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const newRecoveryCode = () => {
  const chars = [...randomBytes(10)].map((byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
};
const recoveryHash = (code: string) => hashToken(code.trim().toLowerCase());

/** a TOTP secret waiting for its first code (Enable 2FA), and a sign-in waiting for its second factor */
interface TwoFactorSetupDoc {
  id: string;
  sealedSecret: string;
  expiresAt: number;
}
/** a password reset link's token, by its SHA-256 */
interface PasswordResetDoc {
  id: string;
  userId: string;
  expiresAt: number;
}
const PASSWORD_RESET_TTL_MS = 60 * 60_000;

interface TwoFactorChallengeDoc {
  id: string;
  userId: string;
  expiresAt: number;
  attempts: number;
}

const rateLimited = (message: string, retryAfterSeconds: number) =>
  new PackyardError('RATE_LIMITED', 'PACKYARD_IDENTITY_RATE_LIMITED', message, { retryAfterSeconds });

/**
 * Identity's use cases: registration and sign-in (password or OpenID Connect), sessions
 * (ID token + rotating refresh token), the profile and the user's API keys. The user
 * aggregate decides; this layer hashes, rate-limits, signs and talks to the stores.
 */
export function createAccounts(deps: {
  es: EventSourcing;
  signer: IdTokenSigner;
  refreshTokens: RefreshTokenStore;
  oidc: OidcClient;
  limits: AccountLimits;
  /** seals TOTP secrets */
  secrets: SecretBox;
  /** unset without SMTP_URL: no password reset by e-mail */
  mailer?: Mailer;
  /** PUBLIC_URL, for links in e-mails; else the origin the request came to */
  publicUrl?: string;
}) {
  const { es, signer, refreshTokens, oidc, limits, secrets, mailer, publicUrl } = deps;
  const passwordResets = es.readModels.collection<PasswordResetDoc>('password_resets');
  // short-lived and not domain facts: beside the read models, as refresh tokens are
  const twoFactorSetups = es.readModels.collection<TwoFactorSetupDoc>('two_factor_setups');
  const twoFactorChallenges = es.readModels.collection<TwoFactorChallengeDoc>('two_factor_challenges');
  // the last TOTP step accepted per user: a code is good for one use (RFC 6238 §5.2)
  const totpSteps = es.readModels.collection<{ id: string; step: number }>('totp_last_steps');
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

  /** an ID token for a refresh token's session: a new one (sign-in) or the next of a rotation */
  const session = async (user: { userId: string; email: string }, refresh: { refreshToken: string; sessionId: string }): Promise<Session> => ({
    idToken: await signer.sign({ id: user.userId, email: user.email }, refresh.sessionId),
    refreshToken: refresh.refreshToken,
    expiresIn: ID_TOKEN_TTL_SECONDS,
    user: { id: user.userId, email: user.email },
    twoFactorChallenge: '',
  });
  const signIn = async (user: { userId: string; email: string }, device: Device) => session(user, await refreshTokens.start(user.userId, device));

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

  /** a code from the authenticator app (each step once) or an unused recovery code (then spent) */
  const secondFactorMatches = async (user: RegisteredUser, code: string): Promise<boolean> => {
    if (!user.twoFactor) return false;
    const secret = secrets.open(user.twoFactor.sealedSecret, TOTP_SEAL_CONTEXT).toString('utf8');
    const step = matchTotp(secret, code, Date.now());
    if (step !== undefined) {
      if (step <= ((await totpSteps.get(user.userId))?.step ?? -1)) return false;
      await totpSteps.upsert({ id: user.userId, step });
      return true;
    }
    const codeHash = recoveryHash(code);
    if (!user.twoFactor.recoveryCodeHashes.includes(codeHash)) return false;
    await execute(user.userId, { type: 'UseRecoveryCode', codeHash, at: now() });
    return true;
  };

  /** after the right password: a session, or a challenge when the account asks for a second factor */
  const passwordAccepted = async (user: RegisteredUser, device: Device): Promise<Session> => {
    if (!user.twoFactor) return signIn(user, device);
    const challenge = randomBytes(32).toString('base64url');
    await twoFactorChallenges.upsert({ id: hashToken(challenge), userId: user.userId, expiresAt: Date.now() + TWO_FACTOR_CHALLENGE_TTL_MS, attempts: 0 });
    return { idToken: '', refreshToken: '', expiresIn: 0, user: undefined, twoFactorChallenge: challenge };
  };

  /** only a person signed in (ID token) may change credentials, never an API token */
  const personally = (caller: Caller, action: string) => {
    if (caller.kind !== 'id_token') throw new PackyardError('FORBIDDEN', 'PACKYARD_AUTH_FORBIDDEN', `Only a signed-in user can ${action}`);
  };

  return {
    jwks: () => signer.jwks(),

    async register(request: { email: string; password: string } & Device) {
      countAttempt(request.clientIp);
      const email = validateEmail(request.email);
      validateNewPassword(request.password);
      const passwordHash = await hashPassword(request.password);
      const userId = await claimEmail(email);
      const user = await execute(userId, { type: 'RegisterUser', userId, email, passwordHash, at: now() });
      return signIn(user, request);
    },

    async login(request: { email: string; password: string } & Device) {
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
      return passwordAccepted(user, request);
    },

    async refresh(refreshToken: string, device: Device) {
      if (!refreshToken) throw invalid('PACKYARD_IDENTITY_REFRESH_TOKEN_REQUIRED', 'refreshToken is required');
      const rotated = await refreshTokens.rotate(refreshToken, device);
      const user = await load(rotated.userId);
      if (user.status !== 'registered') throw unauthenticated('Invalid or expired refresh token');
      return session(user, rotated);
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
    async finishOidc(request: { state: string; code: string; redirectUri: string } & Device) {
      const identity = await oidc.finish(request);
      const link = { issuer: identity.issuer, subject: identity.subject };
      const userId = await claimEmail(identity.email);
      const existing = await load(userId);
      const user =
        existing.status === 'registered'
          ? await execute(userId, { type: 'LinkIdentity', ...link, email: identity.email, at: now() })
          : await execute(userId, { type: 'RegisterUser', userId, email: identity.email, passwordHash: null, identity: link, at: now() });
      return { session: await signIn(user, request), returnTo: identity.returnTo };
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
      return { twoFactorEnabled: user.twoFactor !== null, lastPasswordChange: user.passwordChangedAt };
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
      const device = await refreshTokens.deviceOf(user.userId, caller.sessionId);
      await refreshTokens.revokeAll(user.userId);
      return signIn(changed, device);
    },

    /** the password confirms it; an account without one (Google sign-in only) types its e-mail address */
    async deleteAccount(caller: Caller, confirmation: string) {
      personally(caller, 'delete the account');
      const user = await registeredUser(caller);
      const confirmed = user.passwordHash ? await verifyPassword(user.passwordHash, confirmation) : normalizeEmail(confirmation) === user.email;
      // 400, not 401: a 401 would sign the console out (spec §4)
      if (!confirmed) {
        throw user.passwordHash
          ? invalid('PACKYARD_IDENTITY_PASSWORD_INCORRECT', 'Password is incorrect')
          : invalid('PACKYARD_IDENTITY_CONFIRMATION_MISMATCH', 'Type the email address of this account to confirm');
      }
      await execute(user.userId, { type: 'DeleteAccount', at: now() }, caller);
      await refreshTokens.revokeAll(user.userId);
      await Promise.all(user.tokens.map((token) => tokenUsage.delete(token.id)));
    },

    async completeTwoFactorLogin(request: { challenge: string; code: string } & Device) {
      const found = request.challenge ? await twoFactorChallenges.get(hashToken(request.challenge)) : undefined;
      if (!found || found.expiresAt <= Date.now() || found.attempts >= TWO_FACTOR_ATTEMPTS) {
        if (found) await twoFactorChallenges.delete(found.id);
        throw unauthenticated('This sign-in has expired; sign in again');
      }
      const user = await load(found.userId);
      if (user.status !== 'registered' || !(await secondFactorMatches(user, request.code))) {
        await twoFactorChallenges.upsert({ ...found, attempts: found.attempts + 1 });
        throw unauthenticated(INVALID_CODE);
      }
      await twoFactorChallenges.delete(found.id);
      return signIn(user, request);
    },

    async setupTwoFactor(caller: Caller) {
      personally(caller, 'set up two-factor authentication');
      const user = await registeredUser(caller);
      if (user.twoFactor) throw conflict('PACKYARD_IDENTITY_TWO_FACTOR_ENABLED', 'Two-factor authentication is already enabled');
      const secret = newTotpSecret();
      await twoFactorSetups.upsert({ id: user.userId, sealedSecret: secrets.seal(secret, TOTP_SEAL_CONTEXT), expiresAt: Date.now() + TWO_FACTOR_SETUP_TTL_MS });
      return { secret, otpauthUri: otpauthUri(TOTP_ISSUER, user.email, secret) };
    },

    /** confirms the pending secret with a code from it, and answers the recovery codes, shown this once */
    async enableTwoFactor(caller: Caller, code: string) {
      personally(caller, 'enable two-factor authentication');
      const user = await registeredUser(caller);
      const setup = await twoFactorSetups.get(user.userId);
      if (!setup || setup.expiresAt <= Date.now()) throw invalid('PACKYARD_IDENTITY_TWO_FACTOR_SETUP_EXPIRED', 'Two-factor setup has expired; start again');
      const step = matchTotp(secrets.open(setup.sealedSecret, TOTP_SEAL_CONTEXT).toString('utf8'), code, Date.now());
      // 400, not 401: a 401 would sign the console out (spec §4)
      if (step === undefined) throw invalid('PACKYARD_IDENTITY_TWO_FACTOR_CODE_INVALID', INVALID_CODE);
      const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
      await execute(user.userId, { type: 'EnableTwoFactor', sealedSecret: setup.sealedSecret, recoveryCodeHashes: recoveryCodes.map(recoveryHash), at: now() }, caller);
      await twoFactorSetups.delete(user.userId);
      await totpSteps.upsert({ id: user.userId, step });
      return recoveryCodes;
    },

    async disableTwoFactor(caller: Caller, code: string) {
      personally(caller, 'disable two-factor authentication');
      const user = await registeredUser(caller);
      if (!user.twoFactor) throw conflict('PACKYARD_IDENTITY_TWO_FACTOR_DISABLED', 'Two-factor authentication is not enabled');
      if (!(await secondFactorMatches(user, code))) throw invalid('PACKYARD_IDENTITY_TWO_FACTOR_CODE_INVALID', INVALID_CODE);
      await execute(user.userId, { type: 'DisableTwoFactor', at: now() }, caller);
    },

    /** answers the same whether or not the address has an account, so nobody learns which do */
    async requestPasswordReset(request: { email: string; clientIp: string; origin: string }) {
      countAttempt(request.clientIp);
      if (!mailer) throw new PackyardError('UNAVAILABLE', 'PACKYARD_IDENTITY_MAIL_NOT_CONFIGURED', 'Password reset by email is not configured on this server');
      const user = await findByEmail(normalizeEmail(request.email));
      if (!user) return;
      const token = randomBytes(32).toString('base64url');
      await passwordResets.upsert({ id: hashToken(token), userId: user.userId, expiresAt: Date.now() + PASSWORD_RESET_TTL_MS });
      // in the fragment: it never reaches a server log or a Referer header
      const link = `${(publicUrl ?? request.origin).replace(/\/$/, '')}/reset-password#token=${token}`;
      await mailer.send({
        to: user.email,
        subject: 'Reset your Packyard password',
        text: [
          'Someone (hopefully you) asked to reset the password of your Packyard account.',
          '',
          `Choose a new password here within the next hour: ${link}`,
          '',
          'The link works once. If you did not ask for this, ignore this email: your password stays as it is.',
        ].join('\n'),
      });
    },

    /** spends the link's token: a new password, and every session signed out */
    async resetPassword(request: { token: string; newPassword: string }) {
      const found = request.token ? await passwordResets.get(hashToken(request.token)) : undefined;
      const user = found && found.expiresAt > Date.now() ? await load(found.userId) : undefined;
      if (!found || !user || user.status !== 'registered') {
        throw invalid('PACKYARD_IDENTITY_RESET_LINK_INVALID', 'This password reset link has expired or was already used');
      }
      validateNewPassword(request.newPassword);
      await passwordResets.deleteMany({ userId: user.userId });
      await execute(user.userId, { type: 'ChangePassword', passwordHash: await hashPassword(request.newPassword), at: now() });
      await refreshTokens.revokeAll(user.userId);
    },

    signInOptions: () => ({ google: oidc.configured, passwordReset: mailer !== undefined }),

    async sessions(caller: Caller) {
      personally(caller, 'list sessions');
      return (await refreshTokens.list(signedIn(caller))).map((entry) => ({ ...entry, current: entry.id === caller.sessionId }));
    },

    async revokeSession(caller: Caller, sessionId: string) {
      personally(caller, 'sign out sessions');
      await refreshTokens.revokeSession(signedIn(caller), sessionId);
    },

    async revokeOtherSessions(caller: Caller) {
      personally(caller, 'sign out sessions');
      // without a session of its own (an ID token from before sessions were named) every session goes
      await refreshTokens.revokeAll(signedIn(caller), caller.sessionId);
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
