import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventStoreContract } from '@packyard/testing/contracts/event-store.contract';
import { createEventStore } from './event-store.factory';

eventStoreContract('SQLite', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-events-'));
  return {
    open: () => createEventStore({ kind: 'sqlite', dataDir, module: 'workspace' }),
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});
