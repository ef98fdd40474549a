import { describe, expect, it } from 'vitest';
import type { RepositoryRecord } from '../catalog/served-file';
import { basicAuthToken, grantsRead, INVALID, VerdictCache, type TokenVerdict } from './token-verdicts';

const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const repository: RepositoryRecord = { id: 'r1', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme', name: 'tools', ownerId: 'u1', codename: 'stable', component: 'main' };
const repoToken: TokenVerdict = { valid: true, kind: 'repo_token', tokenId: 't1', ownerId: 'u1', scopes: [], repositoryId: 'r1' };
const accountToken: TokenVerdict = { valid: true, kind: 'access_token', tokenId: 'a1', ownerId: 'u1', scopes: ['read'], repositoryId: '' };

describe('basicAuthToken', () => {
  it('takes the user name of HTTP Basic as the token', () => {
    expect(basicAuthToken(basic('pk_abc'))).toBe('pk_abc');
    expect(basicAuthToken(`basic ${Buffer.from('pk_abc').toString('base64')}`)).toBe('pk_abc');
  });
  it('finds no token in Bearer, empty or user-less credentials', () => {
    expect(basicAuthToken('Bearer pk_abc')).toBeUndefined();
    expect(basicAuthToken(undefined)).toBeUndefined();
    expect(basicAuthToken(basic('', 'pk_abc'))).toBeUndefined();
  });
  it('takes the token with an empty password, or repeated as the password (zypper, yum 3), and nothing else', () => {
    expect(basicAuthToken(basic('pk_abc', 'pk_abc'))).toBe('pk_abc');
    for (const password of ['wrong', 'x', ':', 'pk_abc:', 'pk_ab', ' ']) expect({ password, token: basicAuthToken(basic('pk_abc', password)) }).toEqual({ password, token: undefined });
  });
  it('never asks the token module about a token sent with another password', async () => {
    const asked: string[] = [];
    const cache = new VerdictCache(async (token) => (asked.push(token), repoToken), { ttlMs: 60_000, negativeTtlMs: 60_000, maxEntries: 10 });
    expect(await cache.verdict(basic('pk_1', 'wrong'))).toBe(INVALID);
    expect(await cache.verdict(basic('pk_1'))).toEqual(repoToken);
    expect(asked).toEqual(['pk_1']);
  });
});

describe('grantsRead', () => {
  it('lets a repository token read only its own repository', () => {
    expect(grantsRead(repoToken, repository)).toBe(true);
    expect(grantsRead({ ...repoToken, repositoryId: 'r2' }, repository)).toBe(false);
  });
  it("lets an account token read its owner's repositories with the read scope", () => {
    expect(grantsRead(accountToken, repository)).toBe(true);
    expect(grantsRead({ ...accountToken, repositoryId: 'r1' }, repository)).toBe(true);
    expect(grantsRead({ ...accountToken, repositoryId: 'r2' }, repository)).toBe(false);
    expect(grantsRead({ ...accountToken, scopes: ['publish'] }, repository)).toBe(false);
    expect(grantsRead({ ...accountToken, ownerId: 'u2' }, repository)).toBe(false);
  });
  it('refuses invalid verdicts', () => {
    expect(grantsRead(INVALID, repository)).toBe(false);
    expect(grantsRead({ ...repoToken, valid: false }, repository)).toBe(false);
  });
});

describe('VerdictCache', () => {
  function setup() {
    let now = 0;
    const calls: string[] = [];
    let answer: TokenVerdict = repoToken;
    const cache = new VerdictCache(
      async (token) => {
        calls.push(token);
        return answer;
      },
      { ttlMs: 4000, negativeTtlMs: 1000, maxEntries: 3, now: () => now },
    );
    return { cache, calls, tick: (ms: number) => (now += ms), answer: (v: TokenVerdict) => (answer = v) };
  }

  it('asks once, answers from memory until the verdict expires, then asks again (revocation is seen)', async () => {
    const { cache, calls, tick, answer } = setup();
    expect(await cache.verdict(basic('pk_1'))).toEqual(repoToken);
    expect(cache.verdict(basic('pk_1'))).toEqual(repoToken);
    expect(calls).toEqual(['pk_1']);
    answer(INVALID);
    tick(4001);
    expect(await cache.verdict(basic('pk_1'))).toEqual(INVALID);
    expect(calls).toEqual(['pk_1', 'pk_1']);
  });

  it('keeps invalid verdicts for a shorter time', async () => {
    const { cache, calls, tick, answer } = setup();
    answer(INVALID);
    await cache.verdict(basic('bad'));
    tick(999);
    expect(cache.verdict(basic('bad'))).toEqual(INVALID);
    tick(2);
    await cache.verdict(basic('bad'));
    expect(calls).toEqual(['bad', 'bad']);
  });

  it('shares one call between concurrent requests and asks nothing without a token', async () => {
    const { cache, calls } = setup();
    const [a, b] = await Promise.all([cache.verdict(basic('pk_2')), cache.verdict(basic('pk_2'))]);
    expect(a).toEqual(b);
    expect(cache.verdict(undefined)).toBe(INVALID);
    expect(cache.verdict('Bearer x')).toBe(INVALID);
    expect(calls).toEqual(['pk_2']);
  });

  it('does not keep a failed call', async () => {
    let fail = true;
    const cache = new VerdictCache(async () => {
      if (fail) throw new Error('token module unavailable');
      return repoToken;
    }, { ttlMs: 4000, negativeTtlMs: 1000, maxEntries: 10 });
    await expect(cache.verdict(basic('pk_3'))).rejects.toThrow('unavailable');
    fail = false;
    expect(await cache.verdict(basic('pk_3'))).toEqual(repoToken);
  });

  it('forgets every verdict about a revoked token at once, and never caches it as valid again', async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const cache = new VerdictCache(async (token) => {
      if (token === 'pk_slow') await slow;
      return repoToken;
    }, { ttlMs: 60_000, negativeTtlMs: 1000, maxEntries: 10 });
    expect(await cache.verdict(basic('pk_a'))).toEqual(repoToken);
    expect(await cache.verdict(`basic ${Buffer.from('pk_a').toString('base64')}`)).toEqual(repoToken);
    expect(cache.verdict(basic('pk_a'))).toEqual(repoToken);
    // a call under way when the revocation arrives
    const inFlight = cache.verdict(basic('pk_slow'));
    cache.revoke('t1');
    release();
    expect(await inFlight).toBe(INVALID);
    expect(await cache.verdict(basic('pk_a'))).toBe(INVALID);
    expect(await cache.verdict(`basic ${Buffer.from('pk_a').toString('base64')}`)).toBe(INVALID);
  });
});
