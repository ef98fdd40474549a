import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { useConsole } from '../bootstrap/console-context';
import type { SignInOptions } from './types';

export const signInKeys = {
  all: ['sign-in'] as const,
  options: () => [...signInKeys.all, 'options'] as const,
};

/** Which sign-in methods the server offers: the login page shows Google only when it works. */
export function useSignInOptions() {
  const { api } = useConsole();
  return useQuery(
    queryOptions({ queryKey: signInKeys.options(), queryFn: () => api.get<SignInOptions>('/v1/auth/options', { redirectOnUnauthorized: false }) }),
  );
}

/** "Forgot password?": the server mails a reset link if the address has an account. */
export function useRequestPasswordReset() {
  const { api } = useConsole();
  return useMutation({ mutationFn: (email: string) => api.post<{ message: string }>('/v1/auth/password-reset', { email }, { redirectOnUnauthorized: false }) });
}

/** The reset link's page: a new password with the link's token. */
export function useResetPassword() {
  const { api } = useConsole();
  return useMutation({
    mutationFn: (payload: { token: string; newPassword: string }) => api.post('/v1/auth/password-reset/confirm', payload, { redirectOnUnauthorized: false }),
  });
}
