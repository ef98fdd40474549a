import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobStoreContract } from '@packyard/testing/contracts/blob-store.contract';
import { createBlobStore } from './blob-store.factory';

blobStoreContract(
  'filesystem',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
    return {
      open: () => createBlobStore({ kind: 'fs', dir }),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  { noPresignedGet: 'a filesystem has no URLs; delivery serves these blobs itself' },
);
