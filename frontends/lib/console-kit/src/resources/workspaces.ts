import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useConsole } from '../bootstrap/console-context';
import type { DeletedWorkspace, Workspace } from './types';
import { repositoryKeys } from './repositories';
import { usageKeys } from './usage';

export const workspaceKeys = {
  all: ['workspaces'] as const,
  lists: () => [...workspaceKeys.all, 'list'] as const,
  details: () => [...workspaceKeys.all, 'detail'] as const,
  detail: (workspaceId: string) => [...workspaceKeys.details(), workspaceId] as const,
  /** deleted ones still in their grace period */
  deleted: () => [...workspaceKeys.all, 'deleted'] as const,
};

export interface CreateWorkspacePayload {
  name: string;
  slug: string;
  description?: string;
}

export function useWorkspaces() {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: workspaceKeys.lists(),
      queryFn: async () => (await api.get<{ workspaces: Workspace[] }>('/v1/workspaces')).workspaces ?? [],
    }),
  );
}

export function useWorkspace(workspaceId: string | undefined) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: workspaceKeys.detail(workspaceId ?? ''),
      queryFn: () => api.get<Workspace>(`/v1/workspaces/${encodeURIComponent(workspaceId ?? '')}`),
      enabled: Boolean(workspaceId),
    }),
  );
}

export function useCreateWorkspace() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (payload: CreateWorkspacePayload) => api.post<Workspace>('/v1/workspaces', payload),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workspaceKeys.lists() }),
  });
}

export function useDeleteWorkspace() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (workspaceId: string) => api.delete(`/v1/workspaces/${encodeURIComponent(workspaceId)}`),
    onSuccess: (_answer, workspaceId) => {
      queryClient.removeQueries({ queryKey: workspaceKeys.detail(workspaceId) });
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: workspaceKeys.lists() }),
        queryClient.invalidateQueries({ queryKey: workspaceKeys.deleted() }),
        queryClient.invalidateQueries({ queryKey: usageKeys.all }),
      ]);
    },
  });
}

export function useDeletedWorkspaces() {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: workspaceKeys.deleted(),
      queryFn: async () => (await api.get<{ workspaces: DeletedWorkspace[] }>('/v1/workspaces/deleted')).workspaces ?? [],
    }),
  );
}

/** Brings a deleted workspace back with its repositories, during its grace period. */
export function useRestoreWorkspace() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (workspaceId: string) => api.post<Workspace>(`/v1/workspaces/${encodeURIComponent(workspaceId)}/restore`, {}),
    // its repositories come back too, in every list that shows them
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: workspaceKeys.all }),
        queryClient.invalidateQueries({ queryKey: repositoryKeys.all }),
        queryClient.invalidateQueries({ queryKey: usageKeys.all }),
      ]),
  });
}
