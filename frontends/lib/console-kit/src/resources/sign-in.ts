import { queryOptions, useQuery } from '@tanstack/react-query';
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
