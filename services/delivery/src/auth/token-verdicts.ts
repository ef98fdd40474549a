import type { RepositoryRecord } from '../catalog/served-file';

/** What the token module said about a token (ValidateToken), reduced to what the edge checks. */
export interface TokenVerdict {
  valid: boolean;
  /** "repo_token" | "access_token" */
  kind: string;
  tokenId: string;
  ownerId: string;
  scopes: string[];
  /** the repository the token is limited to; empty: all of its owner's repositories */
  repositoryId: string;
}

export const INVALID: TokenVerdict = { valid: false, kind: '', tokenId: '', ownerId: '', scopes: [], repositoryId: '' };

/**
 * The token in `Authorization: Basic …`: the user name, with an empty password (DESIGN §4),
 * or undefined. The one other password taken is the token itself, which is what clients
 * whose credential stores cannot hold an empty password send (zypper: libzypp drops stored
 * credentials without a password; yum 3: urlgrabber sends none unless both are set). Any
 * other password is refused, not ignored: a client that sends one was set up for something
 * else, and must hear so.
 */
export function basicAuthToken(header: string | undefined): string | undefined {
  if (!header || header.length < 7 || header.slice(0, 6).toLowerCase() !== 'basic ') return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  if (user === '' || (password !== '' && password !== user)) return undefined;
  return user;
}

/**
 * Whether a token may read this repository: a repository token of this very repository,
 * or an account token of the repository's owner with the `read` scope, for all its
 * repositories or limited to this one.
 */
export function grantsRead(verdict: TokenVerdict, repository: RepositoryRecord): boolean {
  if (!verdict.valid) return false;
  if (verdict.kind === 'repo_token') return verdict.repositoryId === repository.id;
  if (verdict.kind === 'access_token') {
    return verdict.ownerId === repository.ownerId && verdict.scopes.includes('read') && (verdict.repositoryId === '' || verdict.repositoryId === repository.id);
  }
  return false;
}

export interface VerdictCacheOptions {
  /** how long a valid verdict is reused: revocations arrive by `revoke`, this bounds a lost one */
  ttlMs: number;
  /** how long an invalid one is (so a client retrying a wrong token costs no call each time) */
  negativeTtlMs: number;
  /** past this many entries the cache starts over, so guessed tokens cannot grow it without bound */
  maxEntries: number;
  now?: () => number;
}

interface Entry {
  verdict: TokenVerdict;
  expires: number;
}

/**
 * Verdicts per `Authorization` header value, so a token is checked with the token module
 * once, not once per request, until the token's revocation arrives (`revoke`, fed by the
 * token module's events). A hit answers synchronously (the hot path allocates no promise);
 * concurrent misses of one value share one call. Failed calls are not cached: the next
 * request asks again.
 */
export class VerdictCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<TokenVerdict>>();
  /** the headers each cached token id was seen under, so a revocation finds them all */
  private readonly headersOf = new Map<string, Set<string>>();
  /** revoked ids, so a call in flight at the revocation cannot cache the token as valid again */
  private readonly revoked = new Set<string>();
  private readonly now: () => number;

  constructor(
    private readonly validate: (token: string) => Promise<TokenVerdict>,
    private readonly options: VerdictCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  verdict(header: string | undefined): TokenVerdict | Promise<TokenVerdict> {
    if (header === undefined) return INVALID;
    const entry = this.entries.get(header);
    if (entry && entry.expires > this.now()) return entry.verdict;
    const inFlight = this.pending.get(header);
    if (inFlight) return inFlight;
    const token = basicAuthToken(header);
    if (token === undefined) return INVALID;
    const call = this.validate(token)
      .then((verdict) => {
        if (verdict.valid && this.revoked.has(verdict.tokenId)) return INVALID;
        if (this.entries.size >= this.options.maxEntries) {
          this.entries.clear();
          this.headersOf.clear();
        }
        this.entries.set(header, { verdict, expires: this.now() + (verdict.valid ? this.options.ttlMs : this.options.negativeTtlMs) });
        if (verdict.valid) this.headersOf.set(verdict.tokenId, (this.headersOf.get(verdict.tokenId) ?? new Set()).add(header));
        return verdict;
      })
      .finally(() => this.pending.delete(header));
    this.pending.set(header, call);
    return call;
  }

  /** a token was revoked: no request is let through on a verdict about it from now on */
  revoke(tokenId: string): void {
    if (this.revoked.size >= this.options.maxEntries) this.revoked.clear();
    this.revoked.add(tokenId);
    for (const header of this.headersOf.get(tokenId) ?? []) this.entries.delete(header);
    this.headersOf.delete(tokenId);
  }
}
