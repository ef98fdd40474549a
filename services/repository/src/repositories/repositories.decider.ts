import { assertNever, conflict, invalid, notFound, type Decider } from '@packyard/platform';
import { wasPurgedAtOnce, type RepositoriesEvent } from './repository.events';

/**
 * The repositories of one workspace. One aggregate per workspace (not per repository)
 * because the rule that matters across repositories, unique names within a
 * workspace, then holds in a single stream under optimistic concurrency, and closing
 * the workspace deletes exactly the repositories that exist at that moment (and
 * reopening it restores exactly those).
 *
 * A deleted repository waits out a grace period, restorable, before it is purged. Its
 * name is free meanwhile: a new repository may take it, and then the deleted one can no
 * longer be restored (409).
 */
export type RepositoryKind = 'DEB' | 'RPM';

export interface RepositoryRecord {
  id: string;
  name: string;
  ownerId: string;
}

export interface DeletedRepositoryRecord extends RepositoryRecord {
  /** deleted with its workspace: restored and purged with it */
  withWorkspace: boolean;
}

export interface Repositories {
  closed: boolean;
  byId: Record<string, RepositoryRecord>;
  /** deleted, not yet purged: restorable */
  deleted: Record<string, DeletedRepositoryRecord>;
}

export type RepositoriesCommand =
  | {
      type: 'CreateRepository';
      repositoryId: string;
      workspaceId: string;
      workspaceSlug: string;
      ownerId: string;
      name: string;
      kind: string;
      codename: string;
      component: string;
      now: string;
    }
  | { type: 'DeleteRepository'; workspaceId: string; repositoryId: string; now: string; purgeAt: string }
  | { type: 'RestoreRepository'; workspaceId: string; repositoryId: string; now: string }
  | { type: 'PurgeRepository'; workspaceId: string; repositoryId: string; now: string }
  | { type: 'CloseWorkspace'; workspaceId: string; now: string }
  | { type: 'ReopenWorkspace'; workspaceId: string; now: string }
  /** the workspace's grace period is over: every deleted repository in it goes for good */
  | { type: 'PurgeWorkspace'; workspaceId: string; now: string };

/** URL-safe: the name is a path segment of `/deb/{workspaceSlug}/{name}` */
export const REPOSITORY_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const REPOSITORY_NAME_RULE =
  'Repository name may only contain lowercase letters, digits, ".", "_" and "-", must start with a letter or digit and be at most 63 characters';
/** codename and component end up in apt source lines and index paths */
const DEB_WORD = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const DEB_WORD_RULE = 'may only contain lowercase letters, digits, ".", "_" and "-", start with a letter or digit and be at most 63 characters';

const DEFAULT_CODENAME = 'stable';
const DEFAULT_COMPONENT = 'main';

function validKind(raw: string): RepositoryKind {
  const kind = (raw.trim() || 'DEB').toUpperCase();
  if (kind !== 'DEB' && kind !== 'RPM') throw invalid('PACKYARD_REPOSITORY_INVALID_KIND', 'Repository kind must be DEB or RPM', { field: 'kind' });
  return kind;
}

function validDebWord(field: 'codename' | 'component', raw: string, fallback: string): string {
  const value = raw.trim() || fallback;
  if (!DEB_WORD.test(value)) {
    throw invalid(`PACKYARD_REPOSITORY_INVALID_${field.toUpperCase()}`, `${field === 'codename' ? 'Codename' : 'Component'} ${DEB_WORD_RULE}`, { field });
  }
  return value;
}

export const repositoriesDecider: Decider<Repositories, RepositoriesCommand, RepositoriesEvent> = {
  initialState: () => ({ closed: false, byId: {}, deleted: {} }),

  decide(command, state) {
    switch (command.type) {
      case 'CreateRepository': {
        if (state.closed) throw notFound('PACKYARD_WORKSPACE_NOT_FOUND', 'Workspace not found');
        const name = command.name.trim();
        if (!name) throw invalid('PACKYARD_REPOSITORY_NAME_REQUIRED', 'Repository name is required', { field: 'name' });
        if (!REPOSITORY_NAME.test(name)) throw invalid('PACKYARD_REPOSITORY_INVALID_NAME', REPOSITORY_NAME_RULE, { field: 'name' });
        const kind = validKind(command.kind);
        // RPM repositories have no codename or component: the distribution is the path
        const codename = kind === 'DEB' ? validDebWord('codename', command.codename, DEFAULT_CODENAME) : '';
        const component = kind === 'DEB' ? validDebWord('component', command.component, DEFAULT_COMPONENT) : '';
        if (Object.values(state.byId).some((repository) => repository.name === name)) {
          throw conflict('PACKYARD_REPOSITORY_NAME_TAKEN', `A repository named "${name}" already exists in this workspace`);
        }
        return [
          {
            type: 'RepositoryCreated',
            data: {
              repositoryId: command.repositoryId,
              workspaceId: command.workspaceId,
              ownerId: command.ownerId,
              name,
              kind,
              codename,
              component,
              createdAt: command.now,
              workspaceSlug: command.workspaceSlug,
            },
          },
        ];
      }
      case 'DeleteRepository': {
        const repository = state.byId[command.repositoryId];
        if (!repository) throw notFound('PACKYARD_REPOSITORY_NOT_FOUND', 'Repository not found');
        return [
          {
            type: 'RepositoryDeleted',
            data: { repositoryId: repository.id, workspaceId: command.workspaceId, ownerId: repository.ownerId, deletedAt: command.now, purgeAt: command.purgeAt, withWorkspace: false },
          },
        ];
      }
      case 'RestoreRepository': {
        const repository = state.deleted[command.repositoryId];
        if (state.closed || !repository || repository.withWorkspace) throw notFound('PACKYARD_REPOSITORY_NOT_FOUND', 'Repository not found');
        if (Object.values(state.byId).some((live) => live.name === repository.name)) {
          throw conflict(
            'PACKYARD_REPOSITORY_NAME_TAKEN',
            `A repository named "${repository.name}" has been created in this workspace since this one was deleted; delete it to restore this one`,
          );
        }
        return [{ type: 'RepositoryRestored', data: { repositoryId: repository.id, workspaceId: command.workspaceId, ownerId: repository.ownerId, restoredAt: command.now } }];
      }
      case 'PurgeRepository': {
        // restored or purged meanwhile (a sweep repeated after a crash): nothing to do
        const repository = state.deleted[command.repositoryId];
        if (!repository) return [];
        return [{ type: 'RepositoryPurged', data: { repositoryId: repository.id, workspaceId: command.workspaceId, ownerId: repository.ownerId, purgedAt: command.now } }];
      }
      case 'CloseWorkspace': {
        // a redelivered WorkspaceDeleted finds the workspace closed and changes nothing
        if (state.closed) return [];
        return [
          ...Object.values(state.byId).map(
            (repository): RepositoriesEvent => ({
              type: 'RepositoryDeleted',
              data: { repositoryId: repository.id, workspaceId: command.workspaceId, ownerId: repository.ownerId, deletedAt: command.now, purgeAt: '', withWorkspace: true },
            }),
          ),
          { type: 'WorkspaceClosed', data: { workspaceId: command.workspaceId, closedAt: command.now } },
        ];
      }
      case 'ReopenWorkspace': {
        if (!state.closed) return [];
        return [
          ...Object.values(state.deleted)
            .filter((repository) => repository.withWorkspace)
            .map(
              (repository): RepositoriesEvent => ({
                type: 'RepositoryRestored',
                data: { repositoryId: repository.id, workspaceId: command.workspaceId, ownerId: repository.ownerId, restoredAt: command.now },
              }),
            ),
          { type: 'WorkspaceReopened', data: { workspaceId: command.workspaceId, reopenedAt: command.now } },
        ];
      }
      case 'PurgeWorkspace':
        // the ones deleted on their own before go too: their workspace will never come back
        return Object.values(state.deleted).map(
          (repository): RepositoriesEvent => ({
            type: 'RepositoryPurged',
            data: { repositoryId: repository.id, workspaceId: command.workspaceId, ownerId: repository.ownerId, purgedAt: command.now },
          }),
        );
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'RepositoryCreated': {
        const { repositoryId: id, name, ownerId } = event.data;
        return { ...state, byId: { ...state.byId, [id]: { id, name, ownerId } } };
      }
      case 'RepositoryDeleted': {
        const { [event.data.repositoryId]: repository, ...byId } = state.byId;
        if (!repository || wasPurgedAtOnce(event.data)) return { ...state, byId };
        return { ...state, byId, deleted: { ...state.deleted, [repository.id]: { ...repository, withWorkspace: event.data.withWorkspace } } };
      }
      case 'RepositoryRestored': {
        const { [event.data.repositoryId]: repository, ...deleted } = state.deleted;
        if (!repository) return state;
        const { withWorkspace: _withWorkspace, ...live } = repository;
        return { ...state, byId: { ...state.byId, [live.id]: live }, deleted };
      }
      case 'RepositoryPurged': {
        const { [event.data.repositoryId]: _purged, ...deleted } = state.deleted;
        return { ...state, deleted };
      }
      case 'WorkspaceClosed':
        return { ...state, closed: true };
      case 'WorkspaceReopened':
        return { ...state, closed: false };
      default:
        return assertNever(event);
    }
  },
};
