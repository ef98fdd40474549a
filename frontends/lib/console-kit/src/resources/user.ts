import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useConsole } from '../bootstrap/console-context';
import type { UserProfile, UserSecurity, UserToken } from './types';

export const userKeys = {
  all: ['user'] as const,
  profile: () => [...userKeys.all, 'profile'] as const,
  security: () => [...userKeys.all, 'security'] as const,
  tokens: () => [...userKeys.all, 'tokens'] as const,
};

export function useProfile() {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: userKeys.profile(), queryFn: () => api.get<UserProfile>('/v1/user/profile') }));
}

export function useUpdateProfile() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (profile: Partial<UserProfile>) => api.put<UserProfile>('/v1/user/profile', profile),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.profile() }),
  });
}

export function useUserSecurity() {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: userKeys.security(), queryFn: () => api.get<UserSecurity>('/v1/user/security') }));
}

export function useUserTokens() {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: userKeys.tokens(), queryFn: () => api.get<UserToken[]>('/v1/user/tokens') }));
}

export function useDeleteUserToken() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) => api.delete(`/v1/user/tokens/${encodeURIComponent(tokenId)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.tokens() }),
  });
}
