import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useConsole } from '../bootstrap/console-context';
import type { AuthAnswer } from '../session/session';
import type { ChangePasswordPayload, CreateUserTokenPayload, UserProfile, UserSecurity, UserSession, UserToken } from './types';

export const userKeys = {
  all: ['user'] as const,
  profile: () => [...userKeys.all, 'profile'] as const,
  security: () => [...userKeys.all, 'security'] as const,
  tokens: () => [...userKeys.all, 'tokens'] as const,
  sessions: () => [...userKeys.all, 'sessions'] as const,
};

export function useProfile(options: { enabled?: boolean } = {}) {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: userKeys.profile(), queryFn: () => api.get<UserProfile>('/v1/user/profile'), enabled: options.enabled }));
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

export function useCreateUserToken() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (payload: CreateUserTokenPayload) => api.post<UserToken & { token: string }>('/v1/user/tokens', payload),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.tokens() }),
  });
}

/** The server signs every session out and answers with a new one: this console carries on in it. */
export function useChangePassword() {
  const { api, session } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (payload: ChangePasswordPayload) => api.post<AuthAnswer>('/v1/user/password', payload),
    onSuccess: (answer) => {
      session.accept(answer);
      void queryClient.invalidateQueries({ queryKey: userKeys.security() });
      void queryClient.invalidateQueries({ queryKey: userKeys.sessions() });
    },
  });
}

export function useUserSessions() {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: userKeys.sessions(), queryFn: () => api.get<UserSession[]>('/v1/user/sessions') }));
}

export function useRevokeSession() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (sessionId: string) => api.delete(`/v1/user/sessions/${encodeURIComponent(sessionId)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.sessions() }),
  });
}

export function useRevokeOtherSessions() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete('/v1/user/sessions'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.sessions() }),
  });
}

/** Export Data: the account's workspaces, repositories and packages' metadata, saved as a JSON file. */
export function useExportData() {
  const { api } = useConsole();
  return useMutation({
    mutationFn: async () => {
      const data = await api.get<{ exportedAt: string }>('/v1/user/export');
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const link = Object.assign(document.createElement('a'), { href: url, download: `packyard-export-${data.exportedAt.slice(0, 10)}.json` });
      document.body.append(link);
      link.click();
      link.remove();
      // the browser has taken the file once the click is handled
      setTimeout(() => URL.revokeObjectURL(url), 0);
    },
  });
}

/** Delete Account: confirmed by the password (or the e-mail address of an account without one); the console signs out after. */
export function useDeleteAccount() {
  const { api, session } = useConsole();
  return useMutation({
    mutationFn: (confirmation: string) => api.request('DELETE', '/v1/user', { confirmation }),
    onSuccess: () => session.clear(),
  });
}

/** A new TOTP secret for an authenticator app, pending until a code from it enables two-factor sign-in. */
export function useSetupTwoFactor() {
  const { api } = useConsole();
  return useMutation({ mutationFn: () => api.post<{ secret: string; otpauthUri: string }>('/v1/user/two-factor/setup') });
}

export function useEnableTwoFactor() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => api.post<{ recoveryCodes: string[] }>('/v1/user/two-factor/enable', { code }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.security() }),
  });
}

export function useDisableTwoFactor() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => api.post('/v1/user/two-factor/disable', { code }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.security() }),
  });
}
