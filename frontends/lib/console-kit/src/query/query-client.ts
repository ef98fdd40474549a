import { QueryClient } from '@tanstack/react-query';

/** Spec §9: data counts as fresh for five minutes. */
export const FRESH_FOR_FIVE_MINUTES = 5 * 60 * 1000;
/** Spec §9: queries and mutations are retried once. */
export const RETRY_ONCE = 1;

/** The console's single QueryClient, created by the bootstrap (the shell owns it). */
export function createConsoleQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: retryOnceUnlessClientError,
        staleTime: FRESH_FOR_FIVE_MINUTES,
        refetchOnWindowFocus: false,
      },
      mutations: { retry: retryOnceUnlessClientError },
    },
  });
}

/** A 4xx answer will not change on a second try (and a 401 has already sent the browser to /login). */
function retryOnceUnlessClientError(failureCount: number, error: unknown): boolean {
  const status = (error as { status?: number } | null)?.status ?? 0;
  return failureCount < RETRY_ONCE && !(status >= 400 && status < 500);
}
