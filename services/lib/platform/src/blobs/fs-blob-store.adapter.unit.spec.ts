import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
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

describe('filesystem blob store', () => {
  it('leaves no temporary file behind when the body fails before the file is open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
    try {
      const store = await createBlobStore({ kind: 'fs', dir });
      for (let attempt = 0; attempt < 20; attempt++) {
        // as when the parser gives up while the store is still preparing its temporary file
        const failingAtOnce = new PassThrough();
        // the store hears of the failure through the stream's state, not this listener
        failingAtOnce.on('error', () => undefined);
        failingAtOnce.destroy(new Error('not a package'));
        await expect(store.putContentAddressed('packages/r', failingAtOnce)).rejects.toThrow('not a package');
      }
      expect(await readdir(join(dir, '.tmp'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes temporary files a crashed put left behind, once nothing has written them since the cutoff', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'packyard-blobs-'));
    try {
      const store = await createBlobStore({ kind: 'fs', dir });
      mkdirSync(join(dir, '.tmp'));
      writeFileSync(join(dir, '.tmp', 'crashed'), 'half a package');
      writeFileSync(join(dir, '.tmp', 'recent'), 'maybe someone is still writing');
      const anHourAgo = new Date(Date.now() - 3600_000);
      utimesSync(join(dir, '.tmp', 'crashed'), anHourAgo, anHourAgo);
      expect(await store.removeAbandonedTemporaries(new Date(Date.now() - 60_000))).toBe(1);
      expect(await readdir(join(dir, '.tmp'))).toEqual(['recent']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
