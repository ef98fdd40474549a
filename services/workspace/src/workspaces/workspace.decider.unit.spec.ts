import { describe, expect, it } from 'vitest';
import { PackyardError } from '@packyard/platform';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { workspaceDecider, type WorkspaceCommand } from './workspace.decider';
import { deriveSlug } from './workspace-slug';
import type { WorkspaceEvent } from './workspace.events';

const now = '2026-01-02T03:04:05.000Z';
const create = (overrides: Partial<Extract<WorkspaceCommand, { type: 'CreateWorkspace' }>> = {}): WorkspaceCommand => ({
  type: 'CreateWorkspace',
  workspaceId: 'ws-1',
  ownerId: 'user-1',
  name: 'Acme',
  slug: 'acme',
  description: '',
  now,
  ...overrides,
});
const created: WorkspaceEvent = { type: 'WorkspaceCreated', data: { workspaceId: 'ws-1', ownerId: 'user-1', name: 'Acme', slug: 'acme', description: '', createdAt: now } };
const purgeAt = '2026-01-09T03:04:05.000Z';
const deleted: WorkspaceEvent = { type: 'WorkspaceDeleted', data: { workspaceId: 'ws-1', ownerId: 'user-1', deletedAt: now, purgeAt } };
const restored: WorkspaceEvent = { type: 'WorkspaceRestored', data: { workspaceId: 'ws-1', ownerId: 'user-1', restoredAt: now } };
const purged: WorkspaceEvent = { type: 'WorkspacePurged', data: { workspaceId: 'ws-1', ownerId: 'user-1', purgedAt: now } };
const restore: WorkspaceCommand = { type: 'RestoreWorkspace', workspaceId: 'ws-1', slug: 'acme', now };
const purge: WorkspaceCommand = { type: 'PurgeWorkspace', workspaceId: 'ws-1', now };
const spec = deciderSpec(workspaceDecider);

describe('workspace decider', () => {
  it('creates a workspace on a free slug, trimming name and description', () =>
    spec.given([]).when(create({ name: '  Acme ', description: ' tools ' })).then([{ ...created, data: { ...created.data, description: 'tools' } }]));

  it('refuses a slug already held (409)', () => {
    let error: unknown;
    try {
      workspaceDecider.decide(create({ workspaceId: 'ws-2' }), workspaceDecider.evolve(workspaceDecider.initialState(), created));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(PackyardError);
    expect(error).toMatchObject({ kind: 'CONFLICT', message: 'The slug "acme" is already taken' });
  });

  it('gives the slug of a deleted workspace to the next one', () =>
    spec.given([created, deleted]).when(create({ workspaceId: 'ws-2' })).then([{ ...created, data: { ...created.data, workspaceId: 'ws-2' } }]));

  it('refuses a blank name', () => spec.given([]).when(create({ name: '   ' })).thenThrows('Workspace name is required'));

  it.each(['Acme', '-acme', 'acme-', 'ac me', 'ac_me', '', 'a'.repeat(64)])('refuses the slug %j with the spec hint', (slug) =>
    spec.given([]).when(create({ slug })).thenThrows(/Only lowercase letters, numbers, and hyphens allowed/),
  );

  it('deletes an active workspace, once, until the purge time it is given', () => {
    spec.given([created]).when({ type: 'DeleteWorkspace', workspaceId: 'ws-1', now, purgeAt }).then([deleted]);
    spec.given([created, deleted]).when({ type: 'DeleteWorkspace', workspaceId: 'ws-1', now, purgeAt }).thenThrows('Workspace not found');
  });

  it('does not delete another workspace that once held the slug', () =>
    spec.given([created, deleted, { ...created, data: { ...created.data, workspaceId: 'ws-2' } }]).when({ type: 'DeleteWorkspace', workspaceId: 'ws-1', now, purgeAt }).thenThrows('Workspace not found'));

  it('restores a deleted workspace during its grace period, and it holds its slug again', () => {
    spec.given([created, deleted]).when(restore).then([restored]);
    spec.given([created, deleted, restored]).when(create({ workspaceId: 'ws-2' })).thenThrows('The slug "acme" is already taken');
    spec.given([created, deleted, restored]).when(restore).thenThrows('Workspace not found');
  });

  it('refuses to restore a workspace whose slug a new workspace took meanwhile (409), and can purge it still', () => {
    const other = { ...created, data: { ...created.data, workspaceId: 'ws-2' } };
    spec.given([created, deleted, other]).when(restore).thenThrows(/has been taken by another workspace since this one was deleted/);
    spec.given([created, deleted, other]).when(purge).then([purged]);
  });

  it('purges a deleted workspace once; a restored or purged one is left alone', () => {
    spec.given([created, deleted]).when(purge).then([purged]);
    spec.given([created, deleted, purged]).when(purge).then([]);
    spec.given([created, deleted, restored]).when(purge).then([]);
    spec.given([created, deleted, purged]).when(restore).thenThrows('Workspace not found');
  });

  it('cannot restore a deletion recorded before restoring existed (it was final)', () =>
    spec.given([created, { ...deleted, data: { ...deleted.data, purgeAt: '' } }]).when(restore).thenThrows('Workspace not found'));
});

describe('deriveSlug (spec §5)', () => {
  it.each([
    ['My Team!', 'my-team'],
    ['  Acme   Tools  ', 'acme-tools'],
    ['a -- b', 'a-b'],
    ['--Ünïcode--', 'ncode'],
    ['!!!', ''],
  ])('%j → %j', (name, slug) => expect(deriveSlug(name)).toBe(slug));
});
