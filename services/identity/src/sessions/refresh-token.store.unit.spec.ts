import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '@packyard/platform';
import { REFRESH_TOKEN_TTL_MS, RefreshTokenStore } from './refresh-token.store';

describe('refresh token store', () => {
  let readModels: SqliteReadModelStore;
  let store: RefreshTokenStore;
  beforeEach(() => {
    readModels = SqliteReadModelStore.open(':memory:');
    store = new RefreshTokenStore(readModels);
  });
  afterEach(() => readModels.close());

  it('keeps only hashes of the tokens it issues', async () => {
    const token = await store.start('u-1');
    const stored = JSON.stringify(await readModels.collection<{ id: string }>('refresh_tokens').find({}));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice('pyd_rf_'.length));
  });

  it('lets exactly one of two racing refreshes with the same token win, and the loser revokes the family', async () => {
    const token = await store.start('u-1');
    const results = await Promise.allSettled([store.rotate(token), store.rotate(token)]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const winner = results.find((result) => result.status === 'fulfilled')!;
    await expect(store.rotate(winner.value.refreshToken)).rejects.toThrow('Invalid or expired refresh token');
  });

  it('refuses an expired token', async () => {
    const token = await store.start('u-1', 0);
    await expect(store.rotate(token, REFRESH_TOKEN_TTL_MS + 1)).rejects.toThrow('Invalid or expired refresh token');
  });

  it('signs out every session of a user, and only that user', async () => {
    const [a, b, other] = [await store.start('u-1'), await store.start('u-1'), await store.start('u-2')];
    await store.revokeAll('u-1');
    await expect(store.rotate(a)).rejects.toThrow();
    await expect(store.rotate(b)).rejects.toThrow();
    await expect(store.rotate(other)).resolves.toMatchObject({ userId: 'u-2' });
  });
});
