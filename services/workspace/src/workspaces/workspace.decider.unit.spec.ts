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
const deleted: WorkspaceEvent = { type: 'WorkspaceDeleted', data: { workspaceId: 'ws-1', ownerId: 'user-1', deletedAt: now } };
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

  it('deletes an active workspace, once', () => {
    spec.given([created]).when({ type: 'DeleteWorkspace', workspaceId: 'ws-1', now }).then([deleted]);
    spec.given([created, deleted]).when({ type: 'DeleteWorkspace', workspaceId: 'ws-1', now }).thenThrows('Workspace not found');
  });

  it('does not delete another workspace that once held the slug', () =>
    spec.given([created, deleted, { ...created, data: { ...created.data, workspaceId: 'ws-2' } }]).when({ type: 'DeleteWorkspace', workspaceId: 'ws-1', now }).thenThrows('Workspace not found'));
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
