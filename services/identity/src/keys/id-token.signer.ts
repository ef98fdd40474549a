import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { handleCommand, loadAggregate, type EventStore } from '@packyard/platform';
import type { SecretBox } from '@packyard/platform/crypto/index';
import { ID_TOKEN_KEY_STREAM, signingKeyDecider } from './signing-key.decider';

/** what the gateway's authenticator checks (services/gateway/src/auth/authenticator.ts) */
export const ID_TOKEN_ISSUER = 'packyard';
export const ID_TOKEN_AUDIENCE = 'packyard-api';
export const ID_TOKEN_TTL_SECONDS = 15 * 60;
const ALG = 'ES256';
const SEAL_CONTEXT = 'identity/id-token-signing-key';

export interface IdTokenSigner {
  /** `sessionId` (claim `sid`) names the sign-in session, so the session list can mark the caller's own */
  sign(user: { id: string; email: string }, sessionId: string): Promise<string>;
  /** the public JWKS (RFC 7517) */
  jwks(): { keys: JWK[] };
}

/** Loads the ES256 signing key from identity's log, creating it on the very first start. */
export async function loadIdTokenSigner(events: EventStore, secrets: SecretBox): Promise<IdTokenSigner> {
  let { state } = await loadAggregate(events, ID_TOKEN_KEY_STREAM, signingKeyDecider);
  if (state.status === 'none') {
    const pair = await generateKeyPair(ALG, { extractable: true });
    const publicJwk = await exportJWK(pair.publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const sealedPrivateJwk = secrets.seal(JSON.stringify(await exportJWK(pair.privateKey)), SEAL_CONTEXT);
    ({ state } = await handleCommand(events, ID_TOKEN_KEY_STREAM, signingKeyDecider, {
      type: 'CreateSigningKey',
      kid,
      publicJwk: publicJwk as Record<string, unknown>,
      sealedPrivateJwk,
      at: new Date().toISOString(),
    }));
  }
  if (state.status !== 'active') throw new Error('the ID token signing key was not stored');
  const { kid } = state;
  const privateKey = await importJWK(JSON.parse(secrets.open(state.sealedPrivateJwk, SEAL_CONTEXT).toString('utf8')) as JWK, ALG);
  const publicJwk: JWK = { ...(state.publicJwk as JWK), kid, alg: ALG, use: 'sig' };

  return {
    sign: (user, sessionId) =>
      new SignJWT({ email: user.email, sid: sessionId })
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setIssuer(ID_TOKEN_ISSUER)
        .setAudience(ID_TOKEN_AUDIENCE)
        .setSubject(user.id)
        .setIssuedAt()
        .setExpirationTime(`${ID_TOKEN_TTL_SECONDS}s`)
        .sign(privateKey),
    jwks: () => ({ keys: [publicJwk] }),
  };
}
