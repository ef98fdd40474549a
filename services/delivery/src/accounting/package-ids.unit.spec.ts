import { describe, expect, it } from 'vitest';
import type { PackageRecord } from '../catalog/delivery.projection';
import { PackageIds } from './package-ids';

const records = (entries: PackageRecord[]) => {
  const byId = new Map(entries.map((record) => [record.id, record]));
  const reads: string[] = [];
  return { reads, byId, collection: { get: async (id: string) => (reads.push(id), byId.get(id)) } };
};

describe('PackageIds', () => {
  it('looks a file up in the read model once, then answers from its cache', async () => {
    const store = records([{ id: 'r1|aa', repositoryId: 'r1', packageId: 'p1' }]);
    const ids = new PackageIds(store.collection, 10);
    expect(await ids.of('r1', 'aa')).toBe('p1');
    expect(await ids.of('r1', 'aa')).toBe('p1');
    expect(store.reads).toEqual(['r1|aa']);
  });

  it('asks again for a file it did not know, and after the projection changed it', async () => {
    const store = records([]);
    const ids = new PackageIds(store.collection, 10);
    expect(await ids.of('r1', 'aa')).toBeUndefined();
    store.byId.set('r1|aa', { id: 'r1|aa', repositoryId: 'r1', packageId: 'p1' });
    expect(await ids.of('r1', 'aa')).toBe('p1');
    store.byId.set('r1|aa', { id: 'r1|aa', repositoryId: 'r1', packageId: 'p2' });
    ids.forget('r1|aa');
    expect(await ids.of('r1', 'aa')).toBe('p2');
  });

  it('keeps at most its bound, dropping the least recently used', async () => {
    const store = records(['a', 'b', 'c'].map((sha) => ({ id: `r1|${sha}`, repositoryId: 'r1', packageId: `p-${sha}` })));
    const ids = new PackageIds(store.collection, 2);
    await ids.of('r1', 'a');
    await ids.of('r1', 'b');
    await ids.of('r1', 'a');
    await ids.of('r1', 'c');
    store.reads.length = 0;
    await ids.of('r1', 'a');
    await ids.of('r1', 'b');
    expect(store.reads).toEqual(['r1|b']);
  });
});
