import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { repositoriesDecider, type RepositoriesCommand } from './repositories.decider';
import type { RepositoriesEvent } from './repository.events';

const now = '2026-01-02T03:04:05.000Z';
type Create = Extract<RepositoriesCommand, { type: 'CreateRepository' }>;
const create = (overrides: Partial<Create> = {}): RepositoriesCommand => ({
  type: 'CreateRepository',
  repositoryId: 'repo-1',
  workspaceId: 'ws-1',
  workspaceSlug: 'acme',
  ownerId: 'user-1',
  name: 'tools',
  kind: '',
  codename: '',
  component: '',
  now,
  ...overrides,
});
const created = (overrides: Partial<Extract<RepositoriesEvent, { type: 'RepositoryCreated' }>['data']> = {}): RepositoriesEvent => ({
  type: 'RepositoryCreated',
  data: { repositoryId: 'repo-1', workspaceId: 'ws-1', ownerId: 'user-1', name: 'tools', kind: 'DEB', codename: 'stable', component: 'main', createdAt: now, workspaceSlug: 'acme', ...overrides },
});
const purgeAt = '2026-01-09T03:04:05.000Z';
const deleted = (repositoryId: string, withWorkspace = false): RepositoriesEvent => ({
  type: 'RepositoryDeleted',
  data: { repositoryId, workspaceId: 'ws-1', ownerId: 'user-1', deletedAt: now, purgeAt: withWorkspace ? '' : purgeAt, withWorkspace },
});
const restored = (repositoryId: string): RepositoriesEvent => ({ type: 'RepositoryRestored', data: { repositoryId, workspaceId: 'ws-1', ownerId: 'user-1', restoredAt: now } });
const purged = (repositoryId: string): RepositoriesEvent => ({ type: 'RepositoryPurged', data: { repositoryId, workspaceId: 'ws-1', ownerId: 'user-1', purgedAt: now } });
const closed: RepositoriesEvent = { type: 'WorkspaceClosed', data: { workspaceId: 'ws-1', closedAt: now } };
const reopened: RepositoriesEvent = { type: 'WorkspaceReopened', data: { workspaceId: 'ws-1', reopenedAt: now } };
const remove = (repositoryId: string): RepositoriesCommand => ({ type: 'DeleteRepository', workspaceId: 'ws-1', repositoryId, now, purgeAt });
const restore = (repositoryId: string): RepositoriesCommand => ({ type: 'RestoreRepository', workspaceId: 'ws-1', repositoryId, now });
const purge = (repositoryId: string): RepositoriesCommand => ({ type: 'PurgeRepository', workspaceId: 'ws-1', repositoryId, now });
const spec = deciderSpec(repositoriesDecider);

describe('repositories decider', () => {
  it('creates a DEB repository with codename stable and component main by default', () => spec.given([]).when(create()).then([created()]));

  it('keeps the codename and component asked for, and none for RPM', () => {
    spec.given([]).when(create({ kind: 'deb', codename: 'noble', component: 'contrib' })).then([created({ codename: 'noble', component: 'contrib' })]);
    spec.given([]).when(create({ kind: 'rpm', codename: 'noble' })).then([created({ kind: 'RPM', codename: '', component: '' })]);
  });

  it('refuses blank, non URL-safe and over-long names, and unknown kinds', () => {
    spec.given([]).when(create({ name: '  ' })).thenThrows('Repository name is required');
    for (const name of ['My Repo', 'UPPER', '-dash', 'a/b', 'a'.repeat(64)]) spec.given([]).when(create({ name })).thenThrows(/may only contain lowercase letters/);
    spec.given([]).when(create({ kind: 'apk' })).thenThrows('Repository kind must be DEB or RPM');
    spec.given([]).when(create({ codename: 'no ble' })).thenThrows(/Codename may only contain/);
  });

  it('refuses a name taken in the workspace, and frees it on deletion (during the grace period too)', () => {
    spec.given([created()]).when(create({ repositoryId: 'repo-2', kind: 'RPM' })).thenThrows(/already exists in this workspace/);
    spec.given([created(), deleted('repo-1')]).when(create({ repositoryId: 'repo-2' })).then([created({ repositoryId: 'repo-2' })]);
  });

  it('deletes a repository once', () => {
    spec.given([created()]).when(remove('repo-1')).then([deleted('repo-1')]);
    spec.given([created(), deleted('repo-1')]).when(remove('repo-1')).thenThrows('Repository not found');
  });

  it('restores a deleted repository during its grace period, unless its name was taken meanwhile (409)', () => {
    spec.given([created(), deleted('repo-1')]).when(restore('repo-1')).then([restored('repo-1')]);
    spec.given([created(), deleted('repo-1'), restored('repo-1')]).when(restore('repo-1')).thenThrows('Repository not found');
    spec
      .given([created(), deleted('repo-1'), created({ repositoryId: 'repo-2' })])
      .when(restore('repo-1'))
      .thenThrows('A repository named "tools" has been created in this workspace since this one was deleted; delete it to restore this one');
  });

  it('purges a deleted repository once; a restored or purged one is left alone, and cannot come back', () => {
    spec.given([created(), deleted('repo-1')]).when(purge('repo-1')).then([purged('repo-1')]);
    spec.given([created(), deleted('repo-1'), purged('repo-1')]).when(purge('repo-1')).then([]);
    spec.given([created(), deleted('repo-1'), restored('repo-1')]).when(purge('repo-1')).then([]);
    spec.given([created(), deleted('repo-1'), purged('repo-1')]).when(restore('repo-1')).thenThrows('Repository not found');
  });

  it('reopening the workspace restores the repositories closed with it, not the ones deleted before', () => {
    const history = [created(), created({ repositoryId: 'repo-2', name: 'more' }), deleted('repo-1'), deleted('repo-2', true), closed];
    spec.given(history).when({ type: 'ReopenWorkspace', workspaceId: 'ws-1', now }).then([restored('repo-2'), reopened]);
    // one closed with its workspace comes back only with it
    spec.given(history).when(restore('repo-2')).thenThrows('Repository not found');
    spec.given([...history, restored('repo-2'), reopened]).when(restore('repo-1')).then([restored('repo-1')]);
  });

  it('purging the workspace purges every deleted repository in it', () =>
    spec
      .given([created(), created({ repositoryId: 'repo-2', name: 'more' }), deleted('repo-1'), deleted('repo-2', true), closed])
      .when({ type: 'PurgeWorkspace', workspaceId: 'ws-1', now })
      .then([purged('repo-1'), purged('repo-2')]));

  it('closing the workspace deletes every repository in it, and refuses new ones after', () => {
    spec
      .given([created(), created({ repositoryId: 'repo-2', name: 'more' }), deleted('repo-1')])
      .when({ type: 'CloseWorkspace', workspaceId: 'ws-1', now })
      .then([deleted('repo-2', true), closed]);
    spec.given([closed]).when({ type: 'CloseWorkspace', workspaceId: 'ws-1', now }).then([]);
    spec.given([closed]).when(create()).thenThrows('Workspace not found');
  });
});
