import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { PackyardError, type ReadModelStore } from '@packyard/platform';

/**
 * "Sign in with Google": OpenID Connect authorization code flow with PKCE against a
 * configurable issuer. The state, nonce and PKCE verifier of a sign-in in progress are
 * kept server-side (identity's small store, so any replica can finish it), for ten
 * minutes and for one use.
 */
export interface OidcSettings {
  issuer: string;
  clientId?: string;
  clientSecret?: string;
}

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string;
  returnTo: string;
}

interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
  token_endpoint_auth_methods_supported?: string[];
}

interface PendingSignIn {
  id: string;
  verifier: string;
  nonce: string;
  returnTo: string;
  redirectUri: string;
  expiresAt: number;
}

const PENDING_TTL_MS = 10 * 60_000;
const METADATA_TTL_MS = 60 * 60_000;
const HTTP_TIMEOUT_MS = 10_000;
// Google's ID tokens name their issuer with or without the scheme
const ISSUER_ALIASES: Record<string, string[]> = { 'https://accounts.google.com': ['accounts.google.com'] };

export const signInFailed = (message: string) => new PackyardError('UNAUTHENTICATED', 'PACKYARD_IDENTITY_OIDC_FAILED', message);

const random = () => randomBytes(32).toString('base64url');

export class OidcClient {
  private metadata?: { value: ProviderMetadata; fetchedAt: number };
  private keys?: { uri: string; verify: ReturnType<typeof createRemoteJWKSet> };
  private readonly pending;
  private lastSweep = 0;

  constructor(
    private readonly settings: OidcSettings,
    readModels: ReadModelStore,
  ) {
    this.pending = readModels.collection<PendingSignIn>('oidc_pending_sign_ins');
  }

  get configured() {
    return Boolean(this.settings.clientId);
  }

  private async discover(): Promise<ProviderMetadata> {
    if (this.metadata && Date.now() - this.metadata.fetchedAt < METADATA_TTL_MS) return this.metadata.value;
    const url = `${this.settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) }).catch(() => undefined);
    if (!response?.ok) throw new PackyardError('UNAVAILABLE', 'PACKYARD_IDENTITY_OIDC_UNAVAILABLE', 'Google sign-in is unavailable right now');
    const value = (await response.json()) as ProviderMetadata;
    if (value.issuer !== this.settings.issuer) throw new PackyardError('UNAVAILABLE', 'PACKYARD_IDENTITY_OIDC_UNAVAILABLE', 'Google sign-in is misconfigured');
    this.metadata = { value, fetchedAt: Date.now() };
    return value;
  }

  async start(options: { returnTo: string; redirectUri: string }, now = Date.now()): Promise<string> {
    const metadata = await this.discover();
    await this.sweep(now);
    const state = random();
    const pending: PendingSignIn = { id: state, verifier: random(), nonce: random(), returnTo: options.returnTo, redirectUri: options.redirectUri, expiresAt: now + PENDING_TTL_MS };
    await this.pending.upsert(pending);
    const url = new URL(metadata.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.settings.clientId!,
      redirect_uri: options.redirectUri,
      scope: 'openid email profile',
      state,
      nonce: pending.nonce,
      code_challenge: createHash('sha256').update(pending.verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  }

  async finish(options: { state: string; code: string; redirectUri: string }, now = Date.now()): Promise<VerifiedIdentity> {
    const pending = options.state ? await this.pending.get(options.state) : undefined;
    if (pending) await this.pending.delete(pending.id);
    if (!pending || pending.expiresAt <= now || pending.redirectUri !== options.redirectUri) {
      throw signInFailed('Google sign-in expired or was already used; please try again');
    }
    const metadata = await this.discover();
    const tokens = await this.exchange(metadata, pending, options.code);
    const claims = await this.verifyIdToken(metadata, tokens.id_token, pending.nonce);
    const profile = claims.email === undefined && metadata.userinfo_endpoint ? await this.userinfo(metadata, tokens.access_token, claims.sub!) : claims;
    const email = typeof profile.email === 'string' ? profile.email.trim().toLowerCase() : '';
    if (!email) throw signInFailed('Google sign-in did not share an email address');
    if (profile.email_verified !== true && profile.email_verified !== 'true') {
      throw signInFailed('Google sign-in refused: the email address of this account is not verified');
    }
    return { issuer: metadata.issuer, subject: claims.sub!, email, returnTo: pending.returnTo };
  }

  private async exchange(metadata: ProviderMetadata, pending: PendingSignIn, code: string) {
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: pending.redirectUri, code_verifier: pending.verifier });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    const { clientId = '', clientSecret = '' } = this.settings;
    if (methods.includes('client_secret_basic')) {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    } else {
      body.set('client_id', clientId);
      body.set('client_secret', clientSecret);
    }
    const response = await fetch(metadata.token_endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) }).catch(() => undefined);
    const result = (await response?.json().catch(() => undefined)) as { id_token?: string; access_token?: string; error_description?: string } | undefined;
    if (!response?.ok || !result?.id_token) throw signInFailed(`Google sign-in failed${result?.error_description ? `: ${result.error_description}` : ''}`);
    return { id_token: result.id_token, access_token: result.access_token ?? '' };
  }

  private async verifyIdToken(metadata: ProviderMetadata, idToken: string, nonce: string): Promise<JWTPayload> {
    if (this.keys?.uri !== metadata.jwks_uri) this.keys = { uri: metadata.jwks_uri, verify: createRemoteJWKSet(new URL(metadata.jwks_uri)) };
    try {
      const { payload } = await jwtVerify(idToken, this.keys.verify, {
        issuer: [metadata.issuer, ...(ISSUER_ALIASES[metadata.issuer] ?? [])],
        audience: this.settings.clientId,
      });
      if (payload.nonce !== nonce || !payload.sub) throw new Error('nonce mismatch');
      return payload;
    } catch {
      throw signInFailed('Google sign-in failed: the identity token could not be verified');
    }
  }

  /** providers that follow OIDC Core 5.4 strictly put the e-mail claims only in userinfo */
  private async userinfo(metadata: ProviderMetadata, accessToken: string, subject: string): Promise<JWTPayload> {
    const response = await fetch(metadata.userinfo_endpoint!, { headers: { authorization: `Bearer ${accessToken}` }, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) }).catch(() => undefined);
    const claims = (await response?.json().catch(() => undefined)) as JWTPayload | undefined;
    if (!response?.ok || !claims || claims.sub !== subject) throw signInFailed('Google sign-in failed: the profile could not be read');
    return claims;
  }

  /** abandoned sign-ins are removed now and then */
  private async sweep(now: number) {
    if (now - this.lastSweep < PENDING_TTL_MS) return;
    this.lastSweep = now;
    for (const stale of await this.pending.find({})) if (stale.expiresAt <= now) await this.pending.delete(stale.id);
  }
}
