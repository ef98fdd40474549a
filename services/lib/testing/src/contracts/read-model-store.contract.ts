import { afterEach, describe, expect, it } from 'vitest';
import type { ReadModelStore } from '@packyard/platform/readmodels/read-model.port';

export interface ReadModelStoreFixture {
  open(): Promise<ReadModelStore>;
  dispose?(): Promise<void>;
}

interface Repo {
  id: string;
  workspaceId: string;
  name: string;
  packages: number;
  private: boolean;
  deletedAt: string | null;
}

const repo = (id: string, name: string, packages: number, extra: Partial<Repo> = {}): Repo => ({
  id,
  workspaceId: 'w1',
  name,
  packages,
  private: true,
  deletedAt: null,
  ...extra,
});

/** The behaviour every ReadModelStore adapter must show. */
export function readModelStoreContract(adapter: string, setup: () => Promise<ReadModelStoreFixture>, options: { skip?: string } = {}) {
  describe.skipIf(options.skip !== undefined)(`ReadModelStore contract: ${adapter}${options.skip ? ` (skipped: ${options.skip})` : ''}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    const openStore = async () => {
      const fixture = await setup();
      const store = await fixture.open();
      cleanups.push(async () => {
        await store.close().catch(() => undefined);
        await fixture.dispose?.();
      });
      return { store, fixture };
    };
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    it('upserts, gets, replaces and deletes documents by id', async () => {
      const { store } = await openStore();
      const repos = store.collection<Repo>('repositories');
      await repos.upsert(repo('r1', 'debs', 0));
      await repos.upsert(repo('r1', 'debs', 3));
      expect(await repos.get('r1')).toEqual(repo('r1', 'debs', 3));
      expect(await repos.get('nope')).toBeUndefined();
      await repos.delete('r1');
      expect(await repos.get('r1')).toBeUndefined();
    });

    it('finds by equality on strings, numbers, booleans and null, and keeps collections apart', async () => {
      const { store } = await openStore();
      const repos = store.collection<Repo>('repositories');
      await repos.upsert(repo('r1', 'debs', 2));
      await repos.upsert(repo('r2', 'rpms', 2, { private: false }));
      await repos.upsert(repo('r3', 'old', 5, { deletedAt: '2025-01-01', workspaceId: 'w2' }));
      await store.collection<Repo>('other').upsert(repo('r4', 'elsewhere', 2));
      const ids = async (filter: Parameters<typeof repos.find>[0]) => (await repos.find(filter)).map((r) => r.id);
      expect(await ids({ workspaceId: 'w1' })).toEqual(['r1', 'r2']);
      expect(await ids({ packages: 2 })).toEqual(['r1', 'r2']);
      expect(await ids({ private: false })).toEqual(['r2']);
      expect(await ids({ deletedAt: null })).toEqual(['r1', 'r2']);
      expect(await ids({})).toEqual(['r1', 'r2', 'r3']);
      expect(await repos.count({ workspaceId: 'w1' })).toBe(2);
    });

    it('finds the same documents by an indexed field, in every collection, and indexing again changes nothing', async () => {
      const { store } = await openStore();
      const repos = store.collection<Repo>('repositories');
      await repos.upsert(repo('r1', 'debs', 2));
      await store.index('repositories', 'workspaceId');
      await store.index('repositories', 'workspaceId');
      await repos.upsert(repo('r2', 'rpms', 2));
      await repos.upsert(repo('r3', 'old', 5, { workspaceId: 'w2' }));
      await store.collection<Repo>('other').upsert(repo('r4', 'elsewhere', 2));
      expect((await repos.find({ workspaceId: 'w1' })).map((r) => r.id)).toEqual(['r1', 'r2']);
      expect((await repos.find({ workspaceId: 'w1', name: 'rpms' })).map((r) => r.id)).toEqual(['r2']);
      expect(await store.collection<Repo>('other').find({ workspaceId: 'w1' })).toEqual([repo('r4', 'elsewhere', 2)]);
    });

    it('searches case-insensitively, sorts, and pages', async () => {
      const { store } = await openStore();
      const repos = store.collection<Repo>('repositories');
      for (const [id, name, n] of [['r1', 'Alpha-debs', 3], ['r2', 'beta', 1], ['r3', 'DEBS-gamma', 2], ['r4', 'delta (debs.)', 9]] as const)
        await repos.upsert(repo(id, name, n));
      const contains = { field: 'name', value: 'debs' };
      expect((await repos.find({}, { contains, sort: { field: 'packages', direction: 1 } })).map((r) => r.id)).toEqual(['r3', 'r1', 'r4']);
      // strings sort by code point (MongoDB's default without a collation): 'delta' > 'DEBS' > 'Alpha'
      expect((await repos.find({}, { contains, sort: { field: 'name', direction: -1 }, skip: 1, limit: 1 })).map((r) => r.id)).toEqual(['r3']);
      expect(await repos.count({}, { contains })).toBe(3);
      expect(await repos.count({}, { contains: { field: 'name', value: '(debs.)' } })).toBe(1);
    });

    it('deletes many by filter and reports how many', async () => {
      const { store } = await openStore();
      const repos = store.collection<Repo>('repositories');
      await repos.upsert(repo('r1', 'a', 1));
      await repos.upsert(repo('r2', 'b', 1, { workspaceId: 'w2' }));
      await repos.upsert(repo('r3', 'c', 1));
      expect(await repos.deleteMany({ workspaceId: 'w1' })).toBe(2);
      expect((await repos.find({})).map((r) => r.id)).toEqual(['r2']);
    });

    it('skips a write at a position older than the one its document records, and applies one at the same or a later position', async () => {
      const { store } = await openStore();
      const at = (position: number) => store.at(position).collection<Repo>('repositories');
      expect(await at(5).upsert(repo('r1', 'debs', 5))).toBe(true);
      expect(await at(3).upsert(repo('r1', 'debs', 3))).toBe(false);
      expect(await store.collection<Repo>('repositories').get('r1')).toEqual(repo('r1', 'debs', 5));
      // an event handled again (a crash before its checkpoint), or writing one document twice
      expect(await at(5).upsert(repo('r1', 'debs', 6))).toBe(true);
      expect(await at(7).upsert(repo('r1', 'debs', 7))).toBe(true);
      expect(await store.collection<Repo>('repositories').get('r1')).toEqual(repo('r1', 'debs', 7));
      expect(await at(6).delete('r1')).toBe(false);
      expect(await store.collection<Repo>('repositories').get('r1')).toEqual(repo('r1', 'debs', 7));
    });

    it('remembers the position of a deletion: an older write does not bring the document back, a later one does', async () => {
      const { store } = await openStore();
      const at = (position: number) => store.at(position).collection<Repo>('repositories');
      const repos = store.collection<Repo>('repositories');
      await at(1).upsert(repo('r1', 'debs', 1));
      expect(await at(2).delete('r1')).toBe(true);
      expect(await at(1).upsert(repo('r1', 'debs', 1))).toBe(false);
      expect(await repos.get('r1')).toBeUndefined();
      expect(await repos.find({})).toEqual([]);
      expect(await repos.count({})).toBe(0);
      expect(await at(3).upsert(repo('r1', 'debs', 3))).toBe(true);
      expect(await repos.get('r1')).toEqual(repo('r1', 'debs', 3));
    });

    it('deletes many at a position, sparing the documents that record a later one, and remembers each deletion', async () => {
      const { store } = await openStore();
      const at = (position: number) => store.at(position).collection<Repo>('repositories');
      const repos = store.collection<Repo>('repositories');
      await at(1).upsert(repo('r1', 'a', 1));
      await at(2).upsert(repo('r2', 'b', 2, { workspaceId: 'w2' }));
      await at(9).upsert(repo('r3', 'c', 9));
      expect(await at(5).deleteMany({ workspaceId: 'w1' })).toBe(1);
      expect((await repos.find({})).map((r) => r.id)).toEqual(['r2', 'r3']);
      expect(await at(4).upsert(repo('r1', 'a', 4))).toBe(false);
      expect(await repos.get('r1')).toBeUndefined();
      // a deletion already recorded is not counted again
      expect(await at(6).deleteMany({ workspaceId: 'w1' })).toBe(0);
    });

    it('a rebuild forgets the positions of the collections it empties', async () => {
      const { store } = await openStore();
      await store.at(8).collection<Repo>('summaries').upsert(repo('r1', 'a', 8));
      await store.at(9).collection<Repo>('summaries').delete('r1');
      await store.reset('summary', ['summaries']);
      expect(await store.at(1).collection<Repo>('summaries').upsert(repo('r1', 'a', 1))).toBe(true);
      expect(await store.collection<Repo>('summaries').get('r1')).toEqual(repo('r1', 'a', 1));
    });

    it('keeps checkpoints per projection across a reopen; reset empties only that projection', async () => {
      const { store, fixture } = await openStore();
      expect(await store.getCheckpoint('summary')).toBe(0);
      await store.setCheckpoint('summary', 42);
      await store.setCheckpoint('other', 7);
      await store.collection<Repo>('summaries').upsert(repo('r1', 'a', 1));
      await store.collection<Repo>('others').upsert(repo('r2', 'b', 1));
      await store.close();
      const reopened = await fixture.open();
      cleanups.push(() => reopened.close().catch(() => undefined));
      expect(await reopened.getCheckpoint('summary')).toBe(42);
      await reopened.reset('summary', ['summaries']);
      expect(await reopened.getCheckpoint('summary')).toBe(0);
      expect(await reopened.collection('summaries').find({})).toEqual([]);
      expect(await reopened.getCheckpoint('other')).toBe(7);
      expect(await reopened.collection('others').count({})).toBe(1);
    });
  });
}
