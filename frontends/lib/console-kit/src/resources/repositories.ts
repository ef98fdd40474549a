import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useConsole } from '../bootstrap/console-context';
import type { CreateRepositoryPayload, DeletedRepository, Repository } from './types';
import { usageKeys } from './usage';
import { workspaceKeys } from './workspaces';

export const repositoryKeys = {
  all: ['repositories'] as const,
  /** Every repository of the account (GET /v1/repos), e.g. for token scoping. */
  everywhere: () => [...repositoryKeys.all, 'everywhere'] as const,
  inWorkspace: (workspaceId: string) => [...repositoryKeys.all, 'workspace', workspaceId] as const,
  list: (workspaceId: string) => [...repositoryKeys.inWorkspace(workspaceId), 'list'] as const,
  detail: (workspaceId: string, repositoryId: string) => [...repositoryKeys.inWorkspace(workspaceId), 'detail', repositoryId] as const,
  /** the workspace's deleted ones still in their grace period */
  deleted: (workspaceId: string) => [...repositoryKeys.inWorkspace(workspaceId), 'deleted'] as const,
};

const workspacePath = (workspaceId: string) => `/v1/workspaces/${encodeURIComponent(workspaceId)}/repos`;

export function useRepositories(workspaceId: string | undefined) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: repositoryKeys.list(workspaceId ?? ''),
      queryFn: () => api.get<Repository[]>(workspacePath(workspaceId ?? '')),
      enabled: Boolean(workspaceId),
    }),
  );
}

export function useRepository(workspaceId: string | undefined, repositoryId: string | undefined) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: repositoryKeys.detail(workspaceId ?? '', repositoryId ?? ''),
      queryFn: () => api.get<Repository>(`${workspacePath(workspaceId ?? '')}/${encodeURIComponent(repositoryId ?? '')}`),
      enabled: Boolean(workspaceId && repositoryId),
    }),
  );
}

export function useAllRepositories() {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: repositoryKeys.everywhere(), queryFn: () => api.get<Repository[]>('/v1/repos') }));
}

/** A repository change moves the workspace's counts and the account's usage too. */
function invalidateAfterChange(queryClient: ReturnType<typeof useQueryClient>, workspaceId: string) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: repositoryKeys.list(workspaceId) }),
    queryClient.invalidateQueries({ queryKey: repositoryKeys.deleted(workspaceId) }),
    queryClient.invalidateQueries({ queryKey: repositoryKeys.everywhere() }),
    queryClient.invalidateQueries({ queryKey: workspaceKeys.all }),
    queryClient.invalidateQueries({ queryKey: usageKeys.all }),
  ]);
}

export function useCreateRepository(workspaceId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (payload: CreateRepositoryPayload) => api.post<Repository>(workspacePath(workspaceId), payload),
    onSuccess: () => invalidateAfterChange(queryClient, workspaceId),
  });
}

export function useDeleteRepository(workspaceId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (repositoryId: string) => api.delete(`${workspacePath(workspaceId)}/${encodeURIComponent(repositoryId)}`),
    onSuccess: (_answer, repositoryId) => {
      queryClient.removeQueries({ queryKey: repositoryKeys.detail(workspaceId, repositoryId) });
      return invalidateAfterChange(queryClient, workspaceId);
    },
  });
}

export function useDeletedRepositories(workspaceId: string | undefined) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: repositoryKeys.deleted(workspaceId ?? ''),
      queryFn: () => api.get<DeletedRepository[]>(`${workspacePath(workspaceId ?? '')}/deleted`),
      enabled: Boolean(workspaceId),
    }),
  );
}

/** Brings a deleted repository back with its packages, tokens and key, during its grace period. */
export function useRestoreRepository(workspaceId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (repositoryId: string) => api.post<Repository>(`${workspacePath(workspaceId)}/${encodeURIComponent(repositoryId)}/restore`, {}),
    onSuccess: () => invalidateAfterChange(queryClient, workspaceId),
  });
}
