import { queryOptions, useQuery } from '@tanstack/react-query';
import { useConsole } from '../bootstrap/console-context';
import type { UsageSummary } from './types';

export const usageKeys = {
  all: ['usage'] as const,
  summary: () => [...usageKeys.all, 'summary'] as const,
};

export function useUsageSummary() {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: usageKeys.summary(), queryFn: () => api.get<UsageSummary>('/v1/usage/summary') }));
}
