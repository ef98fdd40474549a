import { queryOptions, useQuery } from '@tanstack/react-query';
import { useConsole } from '../bootstrap/console-context';
import type { DownloadSummary, UsageSummary } from './types';

export const usageKeys = {
  all: ['usage'] as const,
  summary: () => [...usageKeys.all, 'summary'] as const,
  downloads: (days: number) => [...usageKeys.all, 'downloads', days] as const,
};

/** the dashboard's window */
export const DOWNLOAD_SUMMARY_DAYS = 30;

export function useUsageSummary() {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: usageKeys.summary(), queryFn: () => api.get<UsageSummary>('/v1/usage/summary') }));
}

/** Downloads per day across the user's workspaces, with the most downloaded packages (GET /v1/usage/downloads). */
export function useDownloadSummary(days = DOWNLOAD_SUMMARY_DAYS) {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: usageKeys.downloads(days), queryFn: () => api.get<DownloadSummary>('/v1/usage/downloads', { query: { days } }) }));
}
