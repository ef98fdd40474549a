import { describe, expect, it } from 'vitest';
import { inboxStream } from '@packyard/platform';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { DELETED_WORKSPACES, OWNER_USAGE, WORKSPACE_REPOSITORIES, WORKSPACE_USAGE, WORKSPACES, workspacesProjection, type UsageDocument } from './workspaces.projection';

const workspaceCreated = { type: 'WorkspaceCreated', stream: 'workspace-acme', data: { workspaceId: 'ws-1', ownerId: 'u-1', name: 'Acme', slug: 'acme', description: '', createdAt: '2026-01-01T00:00:00Z' } };
let inboxId = 0;
const fromInbox = (context: string, type: string, data: object) => ({ type, stream: inboxStream(context, `m-${++inboxId}`), data });
const uploaded = (packageId: string, sizeBytes: number) =>
  fromInbox('artifact', 'PackageUploaded', { packageId, repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1', sizeBytes, uploadedAt: '2026-01-02T00:00:00Z' });
const served = (bytes: number, lastServedAt: string) =>
  fromInbox('delivery', 'FilesServed', { repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1', tokenId: 't-1', requests: 3, bytes, lastServedAt });

describe('workspaces projection', () => {
  it('counts storage from uploads and deletions, for the workspace and its owner, once per event', () =>
    projectionSpec(workspacesProjection)
      .given([workspaceCreated, uploaded('p-1', 1000)])
      .when([uploaded('p-2', 500), fromInbox('artifact', 'PackageDeleted', { packageId: 'p-1', repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1', sizeBytes: 1000 })])
      .then(async (readModels) => {
        expect((await readModels.collection<UsageDocument>(WORKSPACE_USAGE).get('ws-1'))?.storageBytesUsed).toBe(500);
        expect((await readModels.collection<UsageDocument>(OWNER_USAGE).get('u-1'))?.storageBytesUsed).toBe(500);
      }));

  it('counts egress per calendar month, starting again in a new month', () =>
    projectionSpec(workspacesProjection)
      .given([workspaceCreated, served(100, '2026-01-30T00:00:00Z')])
      .when([served(40, '2026-01-31T23:00:00Z'), served(7, '2026-02-01T00:00:00Z')])
      .then(async (readModels) => {
        expect(await readModels.collection<UsageDocument>(OWNER_USAGE).get('u-1')).toMatchObject({ egressMonth: '2026-02', egressBytesMonth: 7 });
      }));

  it('follows repositories from repository events only, and forgets a deleted workspace', () =>
    projectionSpec(workspacesProjection)
      .given([workspaceCreated, fromInbox('repository', 'RepositoryCreated', { repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1' })])
      .when([
        fromInbox('repository', 'RepositoryCreated', { repositoryId: 'r-2', workspaceId: 'ws-1', ownerId: 'u-1' }),
        fromInbox('repository', 'RepositoryDeleted', { repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1' }),
        { type: 'WorkspaceDeleted', stream: 'workspace-acme', data: { workspaceId: 'ws-1', ownerId: 'u-1', deletedAt: '2026-01-03T00:00:00Z' } },
      ])
      .then(async (readModels) => {
        expect(await readModels.collection(WORKSPACE_REPOSITORIES).find({ workspaceId: 'ws-1' })).toEqual([{ id: 'r-2', workspaceId: 'ws-1', ownerId: 'u-1' }]);
        expect(await readModels.collection(WORKSPACES).get('ws-1')).toBeUndefined();
      }));

  it('keeps a deleted workspace apart with its usage and the repositories deleted with it, until it is restored or purged', async () => {
    const ids = { workspaceId: 'ws-1', ownerId: 'u-1' };
    const history = [
      workspaceCreated,
      fromInbox('repository', 'RepositoryCreated', { repositoryId: 'r-1', ...ids }),
      uploaded('p-1', 1000),
      { type: 'WorkspaceDeleted', stream: 'workspace-acme', data: { ...ids, deletedAt: '2026-01-03T00:00:00Z', purgeAt: '2026-01-10T00:00:00Z' } },
      fromInbox('repository', 'RepositoryDeleted', { repositoryId: 'r-1', ...ids, withWorkspace: true, purgeAt: '' }),
    ];
    await projectionSpec(workspacesProjection)
      .given(history.slice(0, 3))
      .when(history.slice(3))
      .then(async (readModels) => {
        expect(await readModels.collection(WORKSPACES).get('ws-1')).toBeUndefined();
        expect(await readModels.collection(DELETED_WORKSPACES).get('ws-1')).toMatchObject({ name: 'Acme', slug: 'acme', purgeAt: '2026-01-10T00:00:00Z' });
        expect(await readModels.collection(WORKSPACE_REPOSITORIES).count({ workspaceId: 'ws-1' })).toBe(1);
        expect((await readModels.collection<UsageDocument>(WORKSPACE_USAGE).get('ws-1'))?.storageBytesUsed).toBe(1000);
      });
    await projectionSpec(workspacesProjection)
      .given(history)
      .when([{ type: 'WorkspaceRestored', stream: 'workspace-acme', data: { ...ids, restoredAt: '2026-01-04T00:00:00Z' } }])
      .then(async (readModels) => {
        expect(await readModels.collection(WORKSPACES).get('ws-1')).toMatchObject({ name: 'Acme', slug: 'acme' });
        expect(await readModels.collection(DELETED_WORKSPACES).find({})).toEqual([]);
      });
    await projectionSpec(workspacesProjection)
      .given(history)
      .when([
        { type: 'WorkspacePurged', stream: 'workspace-acme', data: { ...ids, purgedAt: '2026-01-10T00:00:00Z' } },
        fromInbox('repository', 'RepositoryPurged', { repositoryId: 'r-1', ...ids }),
      ])
      .then(async (readModels) => {
        expect(await readModels.collection(DELETED_WORKSPACES).find({})).toEqual([]);
        expect(await readModels.collection(WORKSPACE_REPOSITORIES).find({})).toEqual([]);
        expect(await readModels.collection(WORKSPACE_USAGE).get('ws-1')).toBeUndefined();
      });
  });
});
