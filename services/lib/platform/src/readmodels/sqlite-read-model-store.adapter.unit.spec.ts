import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readModelStoreContract } from '@packyard/testing/contracts/read-model-store.contract';
import { createReadModelStore } from './read-model-store.factory';

readModelStoreContract('SQLite', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-read-'));
  return {
    open: () => createReadModelStore({ kind: 'sqlite', dataDir, module: 'workspace' }),
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});
