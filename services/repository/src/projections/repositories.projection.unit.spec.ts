import { describe, expect, it } from 'vitest';
import { inboxStream, type RecordedEvent } from '@packyard/platform';
import { project } from '@packyard/platform/readmodels/projection-runner';
import { SqliteReadModelStore } from '@packyard/platform/readmodels/sqlite-read-model-store.adapter';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { DELETED_REPOSITORIES, REPOSITORIES, repositoriesProjection, type DeletedRepositoryDocument, type RepositoryDocument } from './repositories.projection';

const created = {
  type: 'RepositoryCreated',
  stream: 'repositories-ws-1',
  data: { repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1', name: 'tools', kind: 'DEB', codename: 'stable', component: 'main', createdAt: '2026-01-01T00:00:00Z', workspaceSlug: 'acme' },
};
let inboxId = 0;
const uploaded = (packageId: string, sizeBytes: number, uploadedAt: string) => ({
  type: 'PackageUploaded',
  stream: inboxStream('artifact', `m-${++inboxId}`),
  data: { packageId, repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1', sizeBytes, uploadedAt },
});

describe('repositories projection', () => {
  it('keeps package count, size and the last change from artifact events', () =>
    projectionSpec(repositoriesProjection)
      .given([created, uploaded('p-1', 100, '2026-01-02T00:00:00Z')])
      .when([
        uploaded('p-2', 50, '2026-01-03T00:00:00Z'),
        { type: 'PackageDeleted', stream: inboxStream('artifact', 'm-del'), data: { packageId: 'p-1', repositoryId: 'r-1', sizeBytes: 100, deletedAt: '2026-01-04T00:00:00Z' } },
      ])
      .then(async (readModels) => {
        expect(await readModels.collection<RepositoryDocument>(REPOSITORIES).get('r-1')).toMatchObject({
          packageCount: 1,
          sizeBytes: 50,
          updatedAt: '2026-01-04T00:00:00Z',
          createdAt: '2026-01-01T00:00:00Z',
        });
      }));

  it('ignores package events of a deleted repository, and events of that name not from the inbox', () =>
    projectionSpec(repositoriesProjection)
      .given([created])
      .when([{ ...uploaded('p-9', 1, '2026-01-02T00:00:00Z'), stream: 'package-p-9' }, { type: 'RepositoryDeleted', stream: 'repositories-ws-1', data: { repositoryId: 'r-1' } }, uploaded('p-1', 5, '2026-01-05T00:00:00Z')])
      .then(async (readModels) => {
        expect(await readModels.collection(REPOSITORIES).find({})).toEqual([]);
      }));

  it('keeps a deleted repository apart, whole, until it is restored or purged', async () => {
    const ids = { repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1' };
    const deleted = { type: 'RepositoryDeleted', stream: 'repositories-ws-1', data: { ...ids, deletedAt: '2026-01-03T00:00:00Z', purgeAt: '2026-01-10T00:00:00Z', withWorkspace: false } };
    await projectionSpec(repositoriesProjection)
      .given([created, uploaded('p-1', 100, '2026-01-02T00:00:00Z')])
      .when([deleted])
      .then(async (readModels) => {
        expect(await readModels.collection(REPOSITORIES).find({})).toEqual([]);
        expect(await readModels.collection<DeletedRepositoryDocument>(DELETED_REPOSITORIES).get('r-1')).toMatchObject({ name: 'tools', packageCount: 1, sizeBytes: 100, purgeAt: '2026-01-10T00:00:00Z' });
      });
    await projectionSpec(repositoriesProjection)
      .given([created, uploaded('p-1', 100, '2026-01-02T00:00:00Z'), deleted])
      .when([{ type: 'RepositoryRestored', stream: 'repositories-ws-1', data: { ...ids, restoredAt: '2026-01-04T00:00:00Z' } }, uploaded('p-2', 50, '2026-01-05T00:00:00Z')])
      .then(async (readModels) => {
        expect(await readModels.collection(DELETED_REPOSITORIES).find({})).toEqual([]);
        expect(await readModels.collection<RepositoryDocument>(REPOSITORIES).get('r-1')).toMatchObject({ packageCount: 2, sizeBytes: 150 });
      });
    await projectionSpec(repositoriesProjection)
      .given([created, uploaded('p-1', 100, '2026-01-02T00:00:00Z'), deleted])
      .when([{ type: 'RepositoryPurged', stream: 'repositories-ws-1', data: { ...ids, purgedAt: '2026-01-10T00:00:00Z' } }])
      .then(async (readModels) => {
        expect(await readModels.collection(DELETED_REPOSITORIES).find({})).toEqual([]);
        expect(await readModels.collection(REPOSITORIES).find({})).toEqual([]);
      });
  });

  it.each(['repositories', 'repository_package_sizes'])('counts an upload once when handled again after the process died at its write to %s', async (dyingAt) => {
    const readModels = SqliteReadModelStore.open(':memory:');
    const recorded = (event: { type: string; stream: string; data: unknown }, position: number): RecordedEvent => ({ id: `e-${position}`, version: 1, position, recordedAt: new Date(0).toISOString(), ...event });
    try {
      await project(repositoriesProjection, recorded(created, 1), readModels);
      await project(repositoriesProjection, recorded(uploaded('p-1', 100, '2026-01-02T00:00:00Z'), 2), readModels);
      const second = recorded(uploaded('p-2', 50, '2026-01-03T00:00:00Z'), 3);
      const dying = Object.create(readModels) as SqliteReadModelStore;
      dying.at = (position) => {
        const models = readModels.at(position);
        return { ...models, collection: (name: string) => (name === dyingAt ? { ...models.collection(name), upsert: () => Promise.reject(new Error('killed')) } : models.collection(name)) } as never;
      };
      await expect(project(repositoriesProjection, second, dying)).rejects.toThrow('killed');
      await project(repositoriesProjection, second, readModels);
      await project(repositoriesProjection, recorded({ type: 'PackageDeleted', stream: inboxStream('artifact', 'm-del'), data: { packageId: 'p-1', repositoryId: 'r-1', sizeBytes: 100, deletedAt: '2026-01-04T00:00:00Z' } }, 4), readModels);
      expect(await readModels.collection<RepositoryDocument>(REPOSITORIES).get('r-1')).toMatchObject({ packageCount: 1, sizeBytes: 50 });
    } finally {
      await readModels.close();
    }
  });
});
