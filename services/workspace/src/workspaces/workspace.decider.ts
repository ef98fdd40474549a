import { assertNever, conflict, invalid, notFound, type Decider } from '@packyard/platform';
import { SLUG_HINT, SLUG_MAX_LENGTH, SLUG_PATTERN } from './workspace-slug';
import { wasPurgedAtOnce, type WorkspaceEvent } from './workspace.events';

/**
 * One slug's workspaces (see `workspaceStream`): the one holding it, if any, and the ones
 * deleted under it that can still be restored.
 */
export interface Workspace {
  holder?: { workspaceId: string; ownerId: string };
  deleted: Record<string, { ownerId: string }>;
}

export type WorkspaceCommand =
  | { type: 'CreateWorkspace'; workspaceId: string; ownerId: string; name: string; slug: string; description: string; now: string }
  /** `purgeAt`: the end of the grace period (`now` itself when nobody can restore it, as for a deleted account) */
  | { type: 'DeleteWorkspace'; workspaceId: string; now: string; purgeAt: string }
  | { type: 'RestoreWorkspace'; workspaceId: string; slug: string; now: string }
  | { type: 'PurgeWorkspace'; workspaceId: string; now: string };

export const NAME_MAX_LENGTH = 100;
export const DESCRIPTION_MAX_LENGTH = 500;

export const workspaceDecider: Decider<Workspace, WorkspaceCommand, WorkspaceEvent> = {
  initialState: () => ({ deleted: {} }),

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
        if (state.holder) throw conflict('PACKYARD_WORKSPACE_SLUG_TAKEN', `The slug "${command.slug}" is already taken`);
        return [
          {
            type: 'WorkspaceCreated',
            data: { workspaceId: command.workspaceId, ownerId: command.ownerId, name, slug: command.slug, description, createdAt: command.now },
          },
        ];
      }
      case 'DeleteWorkspace': {
        const { holder } = state;
        if (holder?.workspaceId !== command.workspaceId) throw notFound('PACKYARD_WORKSPACE_NOT_FOUND', 'Workspace not found');
        return [{ type: 'WorkspaceDeleted', data: { workspaceId: holder.workspaceId, ownerId: holder.ownerId, deletedAt: command.now, purgeAt: command.purgeAt } }];
      }
      case 'RestoreWorkspace': {
        const deleted = state.deleted[command.workspaceId];
        if (!deleted) throw notFound('PACKYARD_WORKSPACE_NOT_FOUND', 'Workspace not found');
        if (state.holder) {
          throw conflict(
            'PACKYARD_WORKSPACE_SLUG_TAKEN',
            `The slug "${command.slug}" has been taken by another workspace since this one was deleted; delete that workspace to restore this one`,
          );
        }
        return [{ type: 'WorkspaceRestored', data: { workspaceId: command.workspaceId, ownerId: deleted.ownerId, restoredAt: command.now } }];
      }
      case 'PurgeWorkspace': {
        // restored or purged meanwhile (a sweep repeated after a crash): nothing to do
        const deleted = state.deleted[command.workspaceId];
        if (!deleted) return [];
        return [{ type: 'WorkspacePurged', data: { workspaceId: command.workspaceId, ownerId: deleted.ownerId, purgedAt: command.now } }];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WorkspaceCreated':
        return { ...state, holder: { workspaceId: event.data.workspaceId, ownerId: event.data.ownerId } };
      case 'WorkspaceDeleted': {
        const { workspaceId, ownerId } = event.data;
        const holder = state.holder?.workspaceId === workspaceId ? undefined : state.holder;
        return { holder, deleted: wasPurgedAtOnce(event.data) ? state.deleted : { ...state.deleted, [workspaceId]: { ownerId } } };
      }
      case 'WorkspaceRestored': {
        const { [event.data.workspaceId]: _restored, ...deleted } = state.deleted;
        return { holder: { workspaceId: event.data.workspaceId, ownerId: event.data.ownerId }, deleted };
      }
      case 'WorkspacePurged': {
        const { [event.data.workspaceId]: _purged, ...deleted } = state.deleted;
        return { ...state, deleted };
      }
      default:
        return assertNever(event);
    }
  },
};
