import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashTokenValue, recordInbox, SqliteEventStore, SqliteReadModelStore, type Subscription, type TokenHashDocument } from '@packyard/platform';
import { SUSPENDED_REPOSITORIES, TOKEN_HASHES } from '../projections/token-hashes.projection';
import { createTokenValidator, type TokenValidator } from './token-validator';

describe('token validator', () => {
  let dir: string;
  let events: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  let validator: TokenValidator;
  let following: Subscription;
  const uses: string[] = [];
  const store = (value: string, doc: Omit<TokenHashDocument, 'id'>) => readModels.collection<TokenHashDocument>(TOKEN_HASHES).upsert({ id: hashTokenValue(value), ...doc });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'packyard-validator-'));
    events = SqliteEventStore.open(join(dir, 'events.db'));
    readModels = SqliteReadModelStore.open(':memory:');
    uses.length = 0;
    validator = createTokenValidator(readModels.collection<TokenHashDocument>(TOKEN_HASHES), async (tokenId) => {
      uses.push(tokenId);
    });
    // r-0 was deleted before this replica started: the projection holds it
    await readModels.collection(SUSPENDED_REPOSITORIES).upsert({ id: 'r-0' });
    following = await validator.followLog(events, readModels.collection(SUSPENDED_REPOSITORIES), async () => {});
    await store('pyd_rt_a', { kind: 'repo_token', tokenId: 'rt-1', ownerId: 'u-1', repositoryId: 'r-1', scopes: ['read'] });
    await store('pyd_at_b', { kind: 'access_token', tokenId: 'at-1', ownerId: 'u-1', repositoryId: '', scopes: ['read', 'admin'] });
  });
  afterEach(async () => {
    await following.stop();
    await events.close();
    await readModels.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens a repository token for its repository only, and an unlimited access token for any', async () => {
    expect(await validator.validate('pyd_rt_a', 'r-1')).toEqual({ valid: true, kind: 'repo_token', tokenId: 'rt-1', ownerId: 'u-1', scopes: ['read'], repositoryId: 'r-1' });
    expect((await validator.validate('pyd_rt_a', 'r-2')).valid).toBe(false);
    expect((await validator.validate('pyd_at_b', 'r-2')).valid).toBe(true);
    expect((await validator.validate('', 'r-1')).valid).toBe(false);
    expect((await validator.validate('pyd_rt_unknown', 'r-1')).valid).toBe(false);
  });

  it('answers from memory once seen, until a revocation in the log evicts it', async () => {
    await validator.validate('pyd_rt_a', 'r-1');
    // gone from the read model, still cached: the read model is not read again
    await readModels.collection(TOKEN_HASHES).deleteMany({ tokenId: 'rt-1' });
    expect((await validator.validate('pyd_rt_a', 'r-1')).valid).toBe(true);
    // another replica revokes: this one reads it from the log
    await events.append('repo_token-rt-1', 'ANY', [{ id: 'e-1', type: 'RepoTokenRevoked', data: { tokenId: 'rt-1' } }]);
    await expect.poll(async () => (await validator.validate('pyd_rt_a', 'r-1')).valid, { timeout: 5_000 }).toBe(false);
  });

  it('refuses the tokens of a deleted repository during its grace period, and accepts them again after its restoration', async () => {
    await store('pyd_rt_old', { kind: 'repo_token', tokenId: 'rt-0', ownerId: 'u-1', repositoryId: 'r-0', scopes: ['read'] });
    await store('pyd_at_limited', { kind: 'access_token', tokenId: 'at-2', ownerId: 'u-1', repositoryId: 'r-1', scopes: ['read'] });
    expect((await validator.validate('pyd_rt_old', 'r-0')).valid).toBe(false);
    expect((await validator.validate('pyd_rt_a', 'r-1')).valid).toBe(true);
    const repositoryEvent = (id: string, type: string) => recordInbox(events, 'repository', { id, type, key: 'k', data: { repositoryId: 'r-1' }, metadata: {} });
    await repositoryEvent('m-1', 'RepositoryDeleted');
    await expect.poll(async () => (await validator.validate('pyd_rt_a', 'r-1')).valid, { timeout: 5_000 }).toBe(false);
    expect((await validator.validate('pyd_at_limited', '')).valid).toBe(false);
    // an unlimited account token is refused for that repository, not for others
    expect((await validator.validate('pyd_at_b', 'r-1')).valid).toBe(false);
    expect((await validator.validate('pyd_at_b', 'r-2')).valid).toBe(true);
    await repositoryEvent('m-2', 'RepositoryRestored');
    await expect.poll(async () => (await validator.validate('pyd_rt_a', 'r-1')).valid, { timeout: 5_000 }).toBe(true);
    expect((await validator.validate('pyd_at_limited', '')).valid).toBe(true);
  });

  it('records an access token use at most once a minute, and never a repository token use', async () => {
    for (let i = 0; i < 5; i++) {
      await validator.validate('pyd_at_b', '');
      await validator.validate('pyd_rt_a', 'r-1');
    }
    expect(uses).toEqual(['at-1']);
  });
});
