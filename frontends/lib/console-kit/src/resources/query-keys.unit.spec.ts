import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { accessTokenKeys } from './access-tokens';
import { repositoryKeys } from './repositories';
import { userKeys } from './user';
import { workspaceKeys } from './workspaces';

function seeded(keys: ReadonlyArray<readonly unknown[]>) {
  const client = new QueryClient();
  for (const key of keys) client.setQueryData(key, 'cached');
  return client;
}

const isStale = (client: QueryClient, key: readonly unknown[]) => client.getQueryState(key)?.isInvalidated ?? false;

describe('query keys', () => {
  it('invalidating one workspace\'s repositories leaves other workspaces cached', async () => {
    const keys = [repositoryKeys.list('w1'), repositoryKeys.detail('w1', 'r1'), repositoryKeys.list('w2'), workspaceKeys.lists()];
    const client = seeded(keys);
    await client.invalidateQueries({ queryKey: repositoryKeys.inWorkspace('w1') });
    expect(keys.map((key) => isStale(client, key))).toEqual([true, true, false, false]);
  });

  it('the list key of a resource does not reach its details', async () => {
    const keys = [workspaceKeys.lists(), workspaceKeys.detail('w1')];
    const client = seeded(keys);
    await client.invalidateQueries({ queryKey: workspaceKeys.lists() });
    expect(keys.map((key) => isStale(client, key))).toEqual([true, false]);
  });

  it('resources never share a key', () => {
    const roots = [workspaceKeys.all, repositoryKeys.all, accessTokenKeys.all, userKeys.all].map((key) => key[0]);
    expect(new Set(roots).size).toBe(roots.length);
    expect(userKeys.profile()).not.toEqual(userKeys.tokens());
  });
});
