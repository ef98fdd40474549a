import { useConsole } from '@packyard/console-kit';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

// The workspace audit log (GET /v1/workspaces/{id}/audit): components use these hooks and
// never write a raw query key.

export interface AuditEntry {
  id: string;
  at: string;
  action: string;
  actorKind: 'user' | 'token' | 'system';
  actor: string;
  userId: string;
  tokenId: string;
  address: string;
  target: string;
  repositoryId: string;
  reason: string;
}

export interface AuditFilters {
  action: string;
  actor: string;
  page: number;
}

export const AUDIT_PAGE_SIZE = 25;
const EXPORT_PAGE_SIZE = 200;

export const AUDIT_ACTIONS = [
  { value: 'package.uploaded', label: 'Package uploaded' },
  { value: 'package.copied', label: 'Package copied' },
  { value: 'package.promoted', label: 'Package promoted' },
  { value: 'package.deleted', label: 'Package deleted' },
  { value: 'repository.created', label: 'Repository created' },
  { value: 'repository.deleted', label: 'Repository deleted' },
  { value: 'repository.restored', label: 'Repository restored' },
  { value: 'repository.purged', label: 'Repository purged' },
  { value: 'token.created', label: 'Token created' },
  { value: 'token.revoked', label: 'Token revoked' },
] as const;

export const auditKeys = {
  all: ['audit'] as const,
  inWorkspace: (workspaceId: string) => [...auditKeys.all, workspaceId] as const,
  list: (workspaceId: string, filters: AuditFilters) => [...auditKeys.inWorkspace(workspaceId), 'list', filters] as const,
};

const auditPath = (workspaceId: string) => `/v1/workspaces/${encodeURIComponent(workspaceId)}/audit`;
const filterQuery = ({ action, actor }: Pick<AuditFilters, 'action' | 'actor'>) => ({ action: action || undefined, actor: actor || undefined });

export function useAuditLog(workspaceId: string, filters: AuditFilters) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: auditKeys.list(workspaceId, filters),
      queryFn: () => api.get<{ items: AuditEntry[]; total: number }>(auditPath(workspaceId), { query: { ...filterQuery(filters), page: filters.page, size: AUDIT_PAGE_SIZE } }),
      placeholderData: keepPreviousData,
    }),
  );
}

/** Every entry the filters match, as JSON lines (the same lines as GET …/audit/export). */
export function useAuditExport(workspaceId: string) {
  const { api } = useConsole();
  return async (filters: Pick<AuditFilters, 'action' | 'actor'>): Promise<string> => {
    const lines: string[] = [];
    for (let page = 0; ; page++) {
      const { items, total } = await api.get<{ items: AuditEntry[]; total: number }>(auditPath(workspaceId), { query: { ...filterQuery(filters), page, size: EXPORT_PAGE_SIZE } });
      lines.push(...items.map((entry) => JSON.stringify(entry)));
      if (!items.length || lines.length >= total) return lines.length ? `${lines.join('\n')}\n` : '';
    }
  };
}
