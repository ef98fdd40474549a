import { repositoryKeys, usageKeys, useConsole, workspaceKeys } from '@packyard/console-kit';
import { keepPreviousData, queryOptions, type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type DownloadSplit, type DownloadWindow, PACKAGE_PAGE_SIZE, type StockedDistribution } from './repository-rules';

// The server resources of the repository page (spec §3, §7): packages, snippets and repo
// tokens. Components use these hooks and never write a raw query key.

export interface RepositoryPackage {
  id: string;
  name: string;
  version: string;
  architecture: string;
  filename: string;
  sizeBytes: number;
  downloads: number;
  publishedAt: string;
  /** the upload distribution (DESIGN §5 extension), `distro/version` */
  distribution?: string;
}

/** GET …/packages/{packageId}: what the package's file says and where it is */
export interface PackageDetails {
  package: RepositoryPackage;
  kind: 'DEB' | 'RPM';
  summary: string;
  description: string;
  relations: { relation: string; items: string[] }[];
  facts: { name: string; value: string }[];
  files: string[];
  filesTotal: number;
  filesNote: string | null;
  checksums: { sha256: string; sha1: string | null; md5: string | null; sha512: string | null };
  versions: RepositoryPackage[];
  distributions: string[];
}

/** GET …/packages/{packageId}/downloads */
export interface DownloadSeries {
  period: 'day' | 'hour';
  buckets: string[];
  total: number;
  lines: { key: string; label: string; total: number; counts: number[] }[];
}

export interface PackagePage {
  items: RepositoryPackage[];
  total: number;
}

export interface Snippets {
  apt: string;
  yum: string;
  publicKeyUrl: string;
  repositoryUrl: string;
  setupCommands: { oneLiner: string; downloadScript: string; makeExecutable: string; runInstaller: string };
  /** the distributions whose index holds packages, the repository's own codename first */
  distributions: StockedDistribution[];
  /** DEB: the choice the texts use (the one asked for, else the server's default) */
  distro: string;
  codename: string;
  component: string;
}

/** DEB: the distribution and component the instructions are for (absent: the server's default). */
export type AptChoice = {
  distro?: string;
  codename?: string;
  component?: string;
};

export interface RepoToken {
  id: string;
  name: string;
  isActive: boolean;
  token?: string;
  createdAt: string;
  lastUsedAt?: string | null;
  usageCount: number;
}

/** the API's largest page (packages route: size at most 100) */
const ALL_PACKAGES_PAGE_SIZE = 100;

/** GET /v1/repos/{id}/keys: newest first */
export interface SigningKey {
  fingerprint: string;
  algorithm: string;
  createdAt: string;
  expiresAt: string | null;
  status: 'current' | 'previous' | 'retired';
  signsUntil: string | null;
}

export const packageKeys = {
  all: ['packages'] as const,
  inRepository: (workspaceId: string, repositoryId: string) => [...packageKeys.all, workspaceId, repositoryId] as const,
  list: (workspaceId: string, repositoryId: string, filters: { q: string; page: number }) => [...packageKeys.inRepository(workspaceId, repositoryId), 'list', filters] as const,
  detail: (workspaceId: string, repositoryId: string, packageId: string) => [...packageKeys.inRepository(workspaceId, repositoryId), 'detail', packageId] as const,
  downloads: (workspaceId: string, repositoryId: string, packageId: string, filters: { window: string; by: DownloadSplit }) =>
    [...packageKeys.inRepository(workspaceId, repositoryId), 'downloads', packageId, filters] as const,
};

export const snippetKeys = {
  all: ['snippets'] as const,
  forRepository: (repositoryId: string) => [...snippetKeys.all, repositoryId] as const,
  /** bare (Overview, Keys) or with the Install tab's choices */
  detail: (repositoryId: string, choice: AptChoice = {}) => [...snippetKeys.forRepository(repositoryId), choice] as const,
};

export interface RetentionPolicy {
  keepVersions: number;
  keepDownloadedDays: number;
}

export const retentionKeys = {
  all: ['retention'] as const,
  policy: (workspaceId: string, repositoryId: string) => [...retentionKeys.all, workspaceId, repositoryId, 'policy'] as const,
};

export const repoTokenKeys = {
  all: ['repo-tokens'] as const,
  list: (repositoryId: string) => [...repoTokenKeys.all, repositoryId, 'list'] as const,
};

export const signingKeyKeys = {
  all: ['signing-keys'] as const,
  list: (repositoryId: string) => [...signingKeyKeys.all, repositoryId] as const,
};

const repositoryPath = (workspaceId: string, repositoryId: string) => `/v1/workspaces/${encodeURIComponent(workspaceId)}/repos/${encodeURIComponent(repositoryId)}`;
const repoTokensPath = (repositoryId: string) => `/v1/repos/${encodeURIComponent(repositoryId)}/tokens`;

export function usePackages(workspaceId: string, repositoryId: string, filters: { q: string; page: number }) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: packageKeys.list(workspaceId, repositoryId, filters),
      queryFn: () => api.get<PackagePage>(`${repositoryPath(workspaceId, repositoryId)}/packages`, { query: { q: filters.q, page: filters.page, size: PACKAGE_PAGE_SIZE } }),
      placeholderData: keepPreviousData,
    }),
  );
}

export function usePackageDetails(workspaceId: string, repositoryId: string, packageId: string) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: packageKeys.detail(workspaceId, repositoryId, packageId),
      queryFn: () => api.get<PackageDetails>(`${repositoryPath(workspaceId, repositoryId)}/packages/${encodeURIComponent(packageId)}`),
    }),
  );
}

export function usePackageDownloads(workspaceId: string, repositoryId: string, packageId: string, window: DownloadWindow, by: DownloadSplit) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: packageKeys.downloads(workspaceId, repositoryId, packageId, { window: window.id, by }),
      queryFn: () =>
        api.get<DownloadSeries>(`${repositoryPath(workspaceId, repositoryId)}/packages/${encodeURIComponent(packageId)}/downloads`, {
          query: { period: window.period, ...(window.period === 'day' ? { days: window.days } : {}), ...(by ? { by } : {}) },
        }),
    }),
  );
}

/** Every package of a repository (the browse view groups them by distribution), in pages of the API's largest size. */
export function useAllPackages(workspaceId: string, repositoryId: string) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: [...packageKeys.inRepository(workspaceId, repositoryId), 'all'] as const,
      queryFn: async () => {
        const items: RepositoryPackage[] = [];
        for (let page = 0; ; page += 1) {
          const answer = await api.get<PackagePage>(`${repositoryPath(workspaceId, repositoryId)}/packages`, { query: { q: '', page, size: ALL_PACKAGES_PAGE_SIZE } });
          items.push(...answer.items);
          if (answer.items.length < ALL_PACKAGES_PAGE_SIZE || items.length >= answer.total) return items;
        }
      },
    }),
  );
}

/**
 * After packages change: the package lists (also those not on screen, so the Packages tab
 * is current when opened), the repository header, the workspace's counts and the usage.
 */
export function refreshAfterPackageChange(queryClient: QueryClient, workspaceId: string, repositoryId: string) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: packageKeys.inRepository(workspaceId, repositoryId), refetchType: 'all' }),
    queryClient.invalidateQueries({ queryKey: repositoryKeys.detail(workspaceId, repositoryId) }),
    queryClient.invalidateQueries({ queryKey: repositoryKeys.list(workspaceId) }),
    queryClient.invalidateQueries({ queryKey: workspaceKeys.all }),
    queryClient.invalidateQueries({ queryKey: usageKeys.all }),
    // where the packages are (the distributions the instructions offer)
    queryClient.invalidateQueries({ queryKey: snippetKeys.forRepository(repositoryId) }),
  ]);
}

export function useDeletePackage(workspaceId: string, repositoryId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (packageId: string) => api.delete(`${repositoryPath(workspaceId, repositoryId)}/packages/${encodeURIComponent(packageId)}`),
    onSuccess: () => refreshAfterPackageChange(queryClient, workspaceId, repositoryId),
  });
}

export type PackageMove = 'promote' | 'copy';

/**
 * Promote (move) or copy a package into another repository of the workspace, answering once
 * the target publishes it; both repositories' lists and counts change.
 */
export function useMovePackage(workspaceId: string, repositoryId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ packageId, targetRepositoryId, move }: { packageId: string; targetRepositoryId: string; move: PackageMove }) =>
      api.post<RepositoryPackage>(`${repositoryPath(workspaceId, repositoryId)}/packages/${encodeURIComponent(packageId)}/${move}`, { targetRepositoryId }, { query: { wait: 'published' } }),
    onSuccess: (_moved, { targetRepositoryId }) =>
      Promise.all([refreshAfterPackageChange(queryClient, workspaceId, repositoryId), refreshAfterPackageChange(queryClient, workspaceId, targetRepositoryId)]),
  });
}

/** The multipart upload with progress; the queue decides when to refresh. */
export function useUploadPackage(workspaceId: string, repositoryId: string) {
  const { api } = useConsole();
  return (file: File, distribution: string, onProgress: (percent: number) => void) =>
    api.uploadFile<RepositoryPackage>(`${repositoryPath(workspaceId, repositoryId)}/upload`, file, { fields: { distribution }, onProgress });
}

export function useSnippets(repositoryId: string, choice?: AptChoice, enabled = true) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: snippetKeys.detail(repositoryId, choice),
      queryFn: () => api.get<Snippets>(`/v1/repos/${encodeURIComponent(repositoryId)}/snippets`, { query: choice }),
      enabled,
    }),
  );
}

export function useRepoTokens(repositoryId: string) {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: repoTokenKeys.list(repositoryId), queryFn: () => api.get<RepoToken[]>(repoTokensPath(repositoryId)) }));
}

export function useCreateRepoToken(repositoryId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.post<RepoToken & { token: string }>(repoTokensPath(repositoryId), { name }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: repoTokenKeys.list(repositoryId) }),
    // Spec §8: create, delete and reveal failures are only logged.
    onError: (error) => console.error('Could not create the repository token', error),
  });
}

export function useDeleteRepoToken(repositoryId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) => api.delete(`${repoTokensPath(repositoryId)}/${encodeURIComponent(tokenId)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: repoTokenKeys.list(repositoryId) }),
    onError: (error) => console.error('Could not delete the repository token', error),
  });
}

/** GET …/tokens/{tokenId}/reveal: the value of a token the page does not hold. */
export function useRevealRepoToken(repositoryId: string) {
  const { api } = useConsole();
  return useMutation({
    mutationFn: (tokenId: string) => api.get<{ token: string }>(`${repoTokensPath(repositoryId)}/${encodeURIComponent(tokenId)}/reveal`),
    onError: (error) => console.error('Could not reveal the repository token', error),
  });
}

/** `pollMs` while a roll is being made (the server makes the new key in the background) */
export function useSigningKeys(repositoryId: string, pollMs: number | false = false) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: signingKeyKeys.list(repositoryId),
      queryFn: () => api.get<SigningKey[]>(`/v1/repos/${encodeURIComponent(repositoryId)}/keys`),
      refetchInterval: pollMs,
    }),
  );
}

/** POST …/keys/roll: answers at once with the key being replaced; the new key shows in the list within seconds */
export function useRollSigningKey(repositoryId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<{ replacedFingerprint: string; overlapUntil: string }>(`/v1/repos/${encodeURIComponent(repositoryId)}/keys/roll`, {}),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: signingKeyKeys.list(repositoryId) }),
  });
}

export function useRetentionPolicy(workspaceId: string, repositoryId: string) {
  const { api } = useConsole();
  return useQuery(queryOptions({ queryKey: retentionKeys.policy(workspaceId, repositoryId), queryFn: () => api.get<RetentionPolicy>(`${repositoryPath(workspaceId, repositoryId)}/retention`) }));
}

export function useSaveRetentionPolicy(workspaceId: string, repositoryId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (policy: RetentionPolicy) => api.put<RetentionPolicy>(`${repositoryPath(workspaceId, repositoryId)}/retention`, policy),
    onSuccess: (saved) => queryClient.setQueryData(retentionKeys.policy(workspaceId, repositoryId), saved),
  });
}

/** Runs the saved policy now (or only lists what it would delete); a real run changes the package lists. */
export function useApplyRetention(workspaceId: string, repositoryId: string) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (dryRun: boolean) => api.post<{ dryRun: boolean; packages: RepositoryPackage[] }>(`${repositoryPath(workspaceId, repositoryId)}/retention/apply`, {}, { query: { dryRun } }),
    onSuccess: (answer) => (answer.dryRun ? undefined : refreshAfterPackageChange(queryClient, workspaceId, repositoryId)),
  });
}
