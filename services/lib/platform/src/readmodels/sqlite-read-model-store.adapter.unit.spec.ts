import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readModelStoreContract } from '@packyard/testing/contracts/read-model-store.contract';
import { createReadModelStore } from './read-model-store.factory';
import { sqliteReadModelFile } from './sqlite-read-model-store.adapter';

readModelStoreContract('SQLite', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-read-'));
  return {
    open: () => createReadModelStore({ kind: 'sqlite', dataDir, module: 'workspace' }),
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});

it('finds by an indexed field through its index, not by reading the whole collection', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-read-'));
  try {
    const store = await createReadModelStore({ kind: 'sqlite', dataDir, module: 'delivery' });
    const publications = store.collection<{ id: string; repositoryId: string }>('publications');
    for (let n = 0; n < 500; n++) await publications.upsert({ id: `p${n}`, repositoryId: `r${n % 50}` });
    await store.index('publications', 'repositoryId');
    await store.close();
    const db = new Database(sqliteReadModelFile(dataDir, 'delivery'), { readonly: true });
    // the query the adapter writes for find({ repositoryId }) (its JSON path written in, as the index names it)
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT doc FROM documents WHERE collection = ? AND json_extract(doc, '$.repositoryId') = ? ORDER BY id").all('publications', 'r1') as { detail: string }[];
    db.close();
    expect(plan.map((step) => step.detail).join('; ')).toMatch(/USING INDEX documents_by_repositoryId \(collection=\? AND <expr>=\?\)/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
