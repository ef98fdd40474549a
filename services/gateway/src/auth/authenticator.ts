import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { PackyardError, unauthenticated, type Caller, type GrpcClients } from '@packyard/platform';
import { IdentityServiceDefinition } from '@packyard/proto/packyard/identity/v1/identity';
import { TokenServiceDefinition } from '@packyard/proto/packyard/token/v1/token';
import { GATEWAY_CALLER } from '../gateway-caller';

export const ID_TOKEN_ISSUER = 'packyard';
export const ID_TOKEN_AUDIENCE = 'packyard-api';
const JWKS_MAX_AGE_MS = 5 * 60_000;
/** user API keys (settings page) are identity's; every other opaque credential is the token module's */
const USER_KEY_PREFIX = 'pyd_uk_';

/**
 * Turns a bearer credential into the caller: an ID token (ES256 JWT signed by
 * identity, verified here against identity's JWKS, cached), a user API key (validated
 * by identity) or an account access token (validated by the token module, which
 * caches and honours revocation).
 */
export function createAuthenticator(clients: GrpcClients) {
  const identity = clients.client(IdentityServiceDefinition, 'identity');
  const tokens = clients.client(TokenServiceDefinition, 'token');
  let keySet: { verify: ReturnType<typeof createLocalJWKSet>; fetchedAt: number } | undefined;

  const jwks = async (forceRefresh: boolean) => {
    if (!keySet || forceRefresh || Date.now() - keySet.fetchedAt > JWKS_MAX_AGE_MS) {
      const { json } = await identity.getJwks({}, { caller: GATEWAY_CALLER });
      keySet = { verify: createLocalJWKSet(JSON.parse(json) as JSONWebKeySet), fetchedAt: Date.now() };
    }
    return keySet.verify;
  };

  const verifyIdToken = async (token: string): Promise<Caller> => {
    const verifyWith = async (forceRefresh: boolean) =>
      jwtVerify(token, await jwks(forceRefresh), { issuer: ID_TOKEN_ISSUER, audience: ID_TOKEN_AUDIENCE, algorithms: ['ES256'] });
    let result;
    try {
      result = await verifyWith(false);
    } catch (error) {
      // a key rotated since the JWKS was cached: fetch once more
      if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
      result = await verifyWith(true);
    }
    const { sub, sid } = result.payload;
    return { userId: String(sub), kind: 'id_token', scopes: ['read', 'publish', 'admin'], repositoryId: '', tokenId: '', ...(typeof sid === 'string' ? { sessionId: sid } : {}) };
  };

  return async function authenticate(authorization: string | undefined): Promise<Caller> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw unauthenticated('Authentication required');
    const credential = match[1];
    try {
      if (credential.split('.').length === 3) return await verifyIdToken(credential);
      if (credential.startsWith(USER_KEY_PREFIX)) {
        const key = await identity.validateUserToken({ token: credential }, { caller: GATEWAY_CALLER });
        if (!key.valid) throw unauthenticated('Invalid or revoked token');
        // a user API key acts like an account access token: limited to its scopes
        return { userId: key.userId, kind: 'access_token', scopes: key.scopes, repositoryId: '', tokenId: key.tokenId };
      }
      const result = await tokens.validateToken({ token: credential, repositoryId: '' }, { caller: GATEWAY_CALLER });
      if (!result.valid || result.kind !== 'access_token') throw unauthenticated('Invalid or revoked token');
      return { userId: result.ownerId, kind: 'access_token', scopes: result.scopes, repositoryId: result.repositoryId, tokenId: result.tokenId };
    } catch (error) {
      if (error instanceof PackyardError && (error.kind === 'UNAVAILABLE' || error.kind === 'TIMEOUT')) throw error;
      if (error instanceof PackyardError && error.kind === 'UNAUTHENTICATED') throw error;
      throw unauthenticated('Invalid or expired token');
    }
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
