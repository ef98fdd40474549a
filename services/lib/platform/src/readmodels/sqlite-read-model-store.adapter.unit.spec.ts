import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readModelStoreContract } from '@packyard/testing/contracts/read-model-store.contract';
import { createReadModelStore } from './read-model-store.factory';
import { SqliteReadModelStore, sqliteReadModelFile } from './sqlite-read-model-store.adapter';

readModelStoreContract('SQLite', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-read-'));
  return {
    open: () => createReadModelStore({ kind: 'sqlite', dataDir, module: 'workspace' }),
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});

it('finds by an indexed field through its index, however few documents the collection held when it was indexed, in a process that made it and in one that did not', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-read-'));
  try {
    const store = SqliteReadModelStore.open(sqliteReadModelFile(dataDir, 'delivery'));
    // a process that only reads (an edge worker), on the file before the index is made
    const reader = SqliteReadModelStore.open(sqliteReadModelFile(dataDir, 'delivery'));
    // as a program on a new data directory: the projection asks for the index at its start, then fills the collection
    await store.index('publications', 'repositoryId');
    const publications = store.collection<{ id: string; repositoryId: string }>('publications');
    for (let n = 0; n < 500; n++) await publications.upsert({ id: `p${n}`, repositoryId: `r${n % 50}` });
    expect(store.explainFind('publications', { repositoryId: 'r1' })).toMatch(/USING INDEX documents_by_repositoryId \(collection=\? AND <expr>=\?\)/);
    expect(await publications.find({ repositoryId: 'r1' })).toHaveLength(10);
    expect(reader.explainFind('publications', { repositoryId: 'r1' })).toMatch(/USING INDEX documents_by_repositoryId/);
    await reader.close();
    await store.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
