import { errors, jwtVerify, SignJWT } from 'jose';
import type { Caller } from '@packyard/proto/packyard/common/v1/common';

export type { Caller };

/** The metadata key carrying the caller assertion on every call between modules. */
export const CALLER_METADATA_KEY = 'x-packyard-caller';

/** how long an assertion is valid: long enough for a call, short enough that a leaked one is soon useless */
export const CALLER_ASSERTION_TTL_SECONDS = 60;
// an assertion is reused by its signer until half its life has passed, so every call made
// with it still has 30 s to arrive
const REUSE_MS = (CALLER_ASSERTION_TTL_SECONDS * 1000) / 2;
const CACHE_ENTRIES = 10_000;
const ISSUER = 'packyard';

/**
 * A module calling on its own behalf (a reaction, the publisher, the gateway checking a
 * token): named, so the receiver and its logs know which module it was.
 */
export const serviceCaller = (module: string): Caller => ({ userId: `service:${module}`, kind: 'service', scopes: [], repositoryId: '', tokenId: '' });

export const isServiceCaller = (caller: Caller): boolean => caller.kind === 'service' && caller.userId.startsWith('service:');

export class CallerAssertionError extends Error {}

/**
 * The caller travels between modules as a short-lived JWT (HS256 over the key every
 * process of the installation shares: INTERNAL_AUTH_KEY). The receiving module trusts
 * the caller only when the assertion verifies, so a pod that reaches a module's port but
 * holds no key can do nothing. Signed and verified assertions are cached by their content,
 * so a busy path pays for one HMAC per caller per 30 s, not per call.
 */
export class CallerAssertions {
  private readonly signed = new Map<string, { token: Promise<string>; reuseUntil: number }>();
  private readonly verified = new Map<string, { caller: Caller; expiresAt: number }>();

  constructor(private readonly key: Uint8Array) {}

  assert(caller: Caller): Promise<string> {
    const claim = JSON.stringify(caller);
    const now = Date.now();
    const cached = this.signed.get(claim);
    if (cached && cached.reuseUntil > now) return cached.token;
    const token = new SignJWT({ caller })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + CALLER_ASSERTION_TTL_SECONDS)
      .sign(this.key);
    remember(this.signed, claim, { token, reuseUntil: now + REUSE_MS });
    return token;
  }

  /** the caller an assertion vouches for; throws CallerAssertionError when it is forged, expired or malformed */
  async verify(token: string): Promise<Caller> {
    const now = Date.now();
    const cached = this.verified.get(token);
    if (cached && cached.expiresAt > now) return cached.caller;
    try {
      const { payload } = await jwtVerify<{ caller: Partial<Caller> }>(token, this.key, { issuer: ISSUER, algorithms: ['HS256'], requiredClaims: ['exp', 'iat'] });
      const value = payload.caller ?? {};
      const caller: Caller = {
        userId: value.userId ?? '',
        kind: value.kind ?? '',
        scopes: value.scopes ?? [],
        repositoryId: value.repositoryId ?? '',
        tokenId: value.tokenId ?? '',
        ...(value.sessionId ? { sessionId: value.sessionId } : {}),
      };
      if (!caller.kind) throw new CallerAssertionError('the caller assertion names no caller');
      remember(this.verified, token, { caller, expiresAt: payload.exp! * 1000 });
      return caller;
    } catch (error) {
      if (error instanceof CallerAssertionError) throw error;
      if (error instanceof errors.JWTExpired) throw new CallerAssertionError('the caller assertion has expired');
      if (error instanceof errors.JOSEError) throw new CallerAssertionError(`the caller assertion is not valid (${error.code})`);
      throw error;
    }
  }
}

const remember = <V>(cache: Map<string, V>, key: string, value: V) => {
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
};
