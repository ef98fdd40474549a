import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelStore, inboxStream, type ReadModelStore } from '@packyard/platform';
import { deliveryProjection, PUBLIC_KEYS, type CatalogChange, type PublicKeysRecord } from './delivery.projection';

// The public keys in delivery's read model, projected from signing's PublicKeysChanged as
// the inbox records it, on a real (SQLite) read model.

describe('delivery projection: public keys', () => {
  let dir: string;
  let readModels: ReadModelStore;
  let position = 0;
  const changes: CatalogChange[] = [];

  const project = async (context: string, type: string, data: unknown) => {
    position += 1;
    await deliveryProjection((change) => void changes.push(change)).handle(
      { id: `e${position}`, stream: inboxStream(context, `m${position}`), type, data, version: 1, position, recordedAt: new Date().toISOString() },
      readModels,
    );
  };
  const keysOf = (repositoryId: string) => readModels.collection<PublicKeysRecord>(PUBLIC_KEYS).get(repositoryId);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'packyard-delivery-projection-'));
    readModels = await createReadModelStore({ kind: 'sqlite', dataDir: dir, module: 'delivery' });
  });

  afterAll(async () => {
    await readModels?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps the keys each announcement lists, newest first, and tells the edge', async () => {
    await project('signing', 'PublicKeysChanged', { repositoryId: 'r1', publicKeysArmored: ['K1'], changedAt: '2026-01-01T00:00:00Z' });
    await project('signing', 'PublicKeysChanged', { repositoryId: 'r1', publicKeysArmored: ['K2', 'K1'], changedAt: '2026-06-01T00:00:00Z' });
    expect((await keysOf('r1'))?.armored).toEqual(['K2', 'K1']);
    expect(changes.filter((change) => change.kind === 'keys')).toEqual([
      { kind: 'keys', repositoryId: 'r1' },
      { kind: 'keys', repositoryId: 'r1' },
    ]);
  });

  it('forgets a purged repository’s keys, and an announcement arriving after the purge does not bring them back', async () => {
    await project('signing', 'PublicKeysChanged', { repositoryId: 'r2', publicKeysArmored: ['K1'], changedAt: '2026-01-01T00:00:00Z' });
    await project('repository', 'RepositoryPurged', { repositoryId: 'r2', purgedAt: '2026-02-01T00:00:00Z' });
    expect(await keysOf('r2')).toBeUndefined();
    await project('signing', 'PublicKeysChanged', { repositoryId: 'r2', publicKeysArmored: ['K2', 'K1'], changedAt: '2026-01-02T00:00:00Z' });
    expect(await keysOf('r2')).toBeUndefined();
  });
});
