import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '@packyard/platform';
import { REFRESH_TOKEN_TTL_MS, RefreshTokenStore } from './refresh-token.store';

const laptop = { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', clientIp: '192.0.2.10' };
const phone = { userAgent: 'Mozilla/5.0 (iPhone) Safari/604.1', clientIp: '198.51.100.7' };

describe('refresh token store', () => {
  let readModels: SqliteReadModelStore;
  let store: RefreshTokenStore;
  const start = async (userId: string, device = laptop, now?: number) => (await store.start(userId, device, now)).refreshToken;
  beforeEach(() => {
    readModels = SqliteReadModelStore.open(':memory:');
    store = new RefreshTokenStore(readModels);
  });
  afterEach(() => readModels.close());

  it('keeps only hashes of the tokens it issues', async () => {
    const token = await start('u-1');
    const stored = JSON.stringify(await readModels.collection<{ id: string }>('refresh_tokens').find({}));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice('pyd_rf_'.length));
  });

  it('lets exactly one of two racing refreshes with the same token win, and the loser revokes the family', async () => {
    const token = await start('u-1');
    const results = await Promise.allSettled([store.rotate(token), store.rotate(token)]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const winner = results.find((result) => result.status === 'fulfilled')!;
    await expect(store.rotate(winner.value.refreshToken)).rejects.toThrow('Invalid or expired refresh token');
  });

  it('refuses an expired token', async () => {
    const token = await start('u-1', laptop, 0);
    await expect(store.rotate(token, laptop, REFRESH_TOKEN_TTL_MS + 1)).rejects.toThrow('Invalid or expired refresh token');
  });

  it('signs out every session of a user, and only that user', async () => {
    const [a, b, other] = [await start('u-1'), await start('u-1'), await start('u-2')];
    await store.revokeAll('u-1');
    await expect(store.rotate(a)).rejects.toThrow();
    await expect(store.rotate(b)).rejects.toThrow();
    await expect(store.rotate(other)).resolves.toMatchObject({ userId: 'u-2' });
  });

  describe('sessions as the user sees them', () => {
    it('lists each sign-in with its device, most recently used first; a refresh keeps the session and updates its last use', async () => {
      const first = await store.start('u-1', laptop, 1_000);
      const second = await store.start('u-1', phone, 2_000);
      await store.start('u-2', phone, 3_000);
      const rotated = await store.rotate(first.refreshToken, { userAgent: laptop.userAgent, clientIp: '192.0.2.99' }, 5_000);
      expect(rotated.sessionId).toBe(first.sessionId);
      expect(await store.list('u-1', 6_000)).toEqual([
        { id: first.sessionId, userAgent: laptop.userAgent, clientIp: '192.0.2.99', createdAt: 1_000, lastUsedAt: 5_000 },
        { id: second.sessionId, ...phone, createdAt: 2_000, lastUsedAt: 2_000 },
      ]);
    });

    it('leaves out sessions that were signed out or can no longer refresh', async () => {
      const old = await store.start('u-1', laptop, 0);
      const live = await store.start('u-1', phone, REFRESH_TOKEN_TTL_MS);
      const gone = await store.start('u-1', phone, REFRESH_TOKEN_TTL_MS);
      await store.revoke(gone.refreshToken);
      expect((await store.list('u-1', REFRESH_TOKEN_TTL_MS + 1)).map((session) => session.id)).toEqual([live.sessionId]);
      expect(old.sessionId).not.toBe(live.sessionId);
    });

    it("signs out one session by its id; another user's or an unknown session is not found", async () => {
      const mine = await store.start('u-1');
      const theirs = await store.start('u-2');
      await expect(store.revokeSession('u-1', theirs.sessionId)).rejects.toThrow('Session not found');
      await expect(store.revokeSession('u-1', 'nope')).rejects.toThrow('Session not found');
      await store.revokeSession('u-1', mine.sessionId);
      await expect(store.rotate(mine.refreshToken)).rejects.toThrow('Invalid or expired refresh token');
      await expect(store.revokeSession('u-1', mine.sessionId)).rejects.toThrow('Session not found');
      await expect(store.rotate(theirs.refreshToken)).resolves.toMatchObject({ userId: 'u-2' });
    });

    it('signs out every other session and keeps the current one', async () => {
      const current = await store.start('u-1', laptop);
      const other = await store.start('u-1', phone);
      await store.revokeAll('u-1', current.sessionId);
      await expect(store.rotate(other.refreshToken)).rejects.toThrow();
      await expect(store.rotate(current.refreshToken)).resolves.toMatchObject({ sessionId: current.sessionId });
      expect(await store.deviceOf('u-1', current.sessionId)).toEqual(laptop);
      expect(await store.deviceOf('u-2', current.sessionId)).toEqual({ userAgent: '', clientIp: '' });
    });
  });
});
