import { assertNever, conflict, invalid, notFound, type Decider } from '@packyard/platform';
import type { RepositoriesEvent } from './repository.events';

/**
 * The repositories of one workspace. One aggregate per workspace (not per repository)
 * because the rule that matters across repositories, unique names within a
 * workspace, then holds in a single stream under optimistic concurrency, and closing
 * the workspace deletes exactly the repositories that exist at that moment.
 */
export type RepositoryKind = 'DEB' | 'RPM';

export interface RepositoryRecord {
  id: string;
  name: string;
  ownerId: string;
}

export interface Repositories {
  closed: boolean;
  byId: Record<string, RepositoryRecord>;
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
  | { type: 'DeleteRepository'; workspaceId: string; repositoryId: string; now: string }
  | { type: 'CloseWorkspace'; workspaceId: string; now: string };

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
  initialState: () => ({ closed: false, byId: {} }),

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
            data: { repositoryId: repository.id, workspaceId: command.workspaceId, ownerId: repository.ownerId, deletedAt: command.now },
          },
        ];
      }
      case 'CloseWorkspace': {
        // a redelivered WorkspaceDeleted finds the workspace closed and changes nothing
        if (state.closed) return [];
        return [
          ...Object.values(state.byId).map(
            (repository): RepositoriesEvent => ({
              type: 'RepositoryDeleted',
              data: { repositoryId: repository.id, workspaceId: command.workspaceId, ownerId: repository.ownerId, deletedAt: command.now },
            }),
          ),
          { type: 'WorkspaceClosed', data: { workspaceId: command.workspaceId, closedAt: command.now } },
        ];
      }
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
        const { [event.data.repositoryId]: _deleted, ...rest } = state.byId;
        return { ...state, byId: rest };
      }
      case 'WorkspaceClosed':
        return { ...state, closed: true };
      default:
        return assertNever(event);
    }
  },
};
