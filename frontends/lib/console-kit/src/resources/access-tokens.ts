import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useConsole } from '../bootstrap/console-context';
import type { AccessToken, CreateAccessTokenPayload } from './types';

export const accessTokenKeys = {
  all: ['access-tokens'] as const,
  lists: () => [...accessTokenKeys.all, 'list'] as const,
};

export function useAccessTokens() {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: accessTokenKeys.lists(), queryFn: () => api.get<AccessToken[]>('/v1/tokens') }));
}

export function useCreateAccessToken() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (payload: CreateAccessTokenPayload) => api.post<AccessToken & { token: string }>('/v1/tokens', payload),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accessTokenKeys.lists() }),
  });
}

export function useDeleteAccessToken() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) => api.delete(`/v1/tokens/${encodeURIComponent(tokenId)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accessTokenKeys.lists() }),
  });
}
