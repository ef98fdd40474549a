import { assertNever, conflict, invalid, notFound, type Decider } from '@packyard/platform';
import { SLUG_HINT, SLUG_MAX_LENGTH, SLUG_PATTERN } from './workspace-slug';
import type { WorkspaceEvent } from './workspace.events';

/** The workspace holding a slug, if any (see `workspaceStream`). */
export type Workspace = { status: 'free' } | { status: 'active'; workspaceId: string; ownerId: string };

export type WorkspaceCommand =
  | { type: 'CreateWorkspace'; workspaceId: string; ownerId: string; name: string; slug: string; description: string; now: string }
  | { type: 'DeleteWorkspace'; workspaceId: string; now: string };

export const NAME_MAX_LENGTH = 100;
export const DESCRIPTION_MAX_LENGTH = 500;

export const workspaceDecider: Decider<Workspace, WorkspaceCommand, WorkspaceEvent> = {
  initialState: () => ({ status: 'free' }),

  decide(command, state) {
    switch (command.type) {
      case 'CreateWorkspace': {
        const name = command.name.trim();
        if (!name) throw invalid('PACKYARD_WORKSPACE_NAME_REQUIRED', 'Workspace name is required', { field: 'name' });
        if (name.length > NAME_MAX_LENGTH) {
          throw invalid('PACKYARD_WORKSPACE_NAME_TOO_LONG', `Workspace name must be at most ${NAME_MAX_LENGTH} characters`, { field: 'name' });
        }
        if (!SLUG_PATTERN.test(command.slug) || command.slug.length > SLUG_MAX_LENGTH) {
          throw invalid('PACKYARD_WORKSPACE_INVALID_SLUG', `${SLUG_HINT} (at most ${SLUG_MAX_LENGTH} characters, starting and ending with a letter or number)`, {
            field: 'slug',
          });
        }
        const description = command.description.trim();
        if (description.length > DESCRIPTION_MAX_LENGTH) {
          throw invalid('PACKYARD_WORKSPACE_DESCRIPTION_TOO_LONG', `Description must be at most ${DESCRIPTION_MAX_LENGTH} characters`, { field: 'description' });
        }
        if (state.status === 'active') throw conflict('PACKYARD_WORKSPACE_SLUG_TAKEN', `The slug "${command.slug}" is already taken`);
        return [
          {
            type: 'WorkspaceCreated',
            data: { workspaceId: command.workspaceId, ownerId: command.ownerId, name, slug: command.slug, description, createdAt: command.now },
          },
        ];
      }
      case 'DeleteWorkspace':
        if (state.status !== 'active' || state.workspaceId !== command.workspaceId) throw notFound('PACKYARD_WORKSPACE_NOT_FOUND', 'Workspace not found');
        return [{ type: 'WorkspaceDeleted', data: { workspaceId: state.workspaceId, ownerId: state.ownerId, deletedAt: command.now } }];
      default:
        return assertNever(command);
    }
  },

  evolve(_state, event) {
    switch (event.type) {
      case 'WorkspaceCreated':
        return { status: 'active', workspaceId: event.data.workspaceId, ownerId: event.data.ownerId };
      case 'WorkspaceDeleted':
        return { status: 'free' };
      default:
        return assertNever(event);
    }
  },
};
