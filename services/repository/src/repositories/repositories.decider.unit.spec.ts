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
const deleted = (repositoryId: string): RepositoriesEvent => ({ type: 'RepositoryDeleted', data: { repositoryId, workspaceId: 'ws-1', ownerId: 'user-1', deletedAt: now } });
const closed: RepositoriesEvent = { type: 'WorkspaceClosed', data: { workspaceId: 'ws-1', closedAt: now } };
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

  it('refuses a name taken in the workspace, and frees it on deletion', () => {
    spec.given([created()]).when(create({ repositoryId: 'repo-2', kind: 'RPM' })).thenThrows(/already exists in this workspace/);
    spec.given([created(), deleted('repo-1')]).when(create({ repositoryId: 'repo-2' })).then([created({ repositoryId: 'repo-2' })]);
  });

  it('deletes a repository once', () => {
    spec.given([created()]).when({ type: 'DeleteRepository', workspaceId: 'ws-1', repositoryId: 'repo-1', now }).then([deleted('repo-1')]);
    spec.given([created(), deleted('repo-1')]).when({ type: 'DeleteRepository', workspaceId: 'ws-1', repositoryId: 'repo-1', now }).thenThrows('Repository not found');
  });

  it('closing the workspace deletes every repository in it, and refuses new ones after', () => {
    spec
      .given([created(), created({ repositoryId: 'repo-2', name: 'more' }), deleted('repo-1')])
      .when({ type: 'CloseWorkspace', workspaceId: 'ws-1', now })
      .then([deleted('repo-2'), closed]);
    spec.given([closed]).when({ type: 'CloseWorkspace', workspaceId: 'ws-1', now }).then([]);
    spec.given([closed]).when(create()).thenThrows('Workspace not found');
  });
});
