import { Alert, Button, EmptyState, ErrorPanel, formatDate, Icon, IconButton, type Repository, Spinner } from '@packyard/console-kit';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { PackageCells, PackageColumnHeaders } from '../package-cells';
import { PromoteDialog } from '../packages/promote-dialog';
import type { KnownTokens } from '../repository-page';
import { basicAuthorization, DOWNLOAD_NEEDS_TOKEN, PACKAGE_PAGE_SIZE, packageDeleteConfirmation, packageDetailPath, packageFileUrl, pageCount } from '../repository-rules';
import { packageKeys, type RepositoryPackage, useDeletePackage, usePackages, useRepoTokens, useRevealRepoToken, useSnippets } from '../repository-resources';

const SEARCH_DELAY_MS = 250;

interface PackagesTabProps {
  workspaceId: string;
  repository: Repository;
  knownTokens: KnownTokens;
  rememberToken: (tokenId: string, value: string) => void;
}

/**
 * The package file is served by the apt/yum edge, which takes a repository token as HTTP
 * Basic user (the API offers no download route for the ID token). The page uses a token
 * whose value it holds, else reveals the first active one, then saves the bytes.
 */
function useDownload({ workspaceId, repository, knownTokens, rememberToken }: PackagesTabProps) {
  const queryClient = useQueryClient();
  const snippets = useSnippets(repository.id);
  const tokens = useRepoTokens(repository.id);
  const reveal = useRevealRepoToken(repository.id);
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();

  async function tokenValue(): Promise<string | undefined> {
    const active = (tokens.data ?? []).filter((token) => token.isActive);
    for (const token of active) {
      const value = knownTokens[token.id] ?? token.token;
      if (value) return value;
    }
    if (active.length === 0) return undefined;
    const { token } = await reveal.mutateAsync(active[0].id);
    rememberToken(active[0].id, token);
    return token;
  }

  async function download(pkg: RepositoryPackage) {
    setError(undefined);
    const url = snippets.data ? packageFileUrl(snippets.data.repositoryUrl, repository, pkg) : undefined;
    if (!url) return setError(`The download address of ${pkg.filename} is not known yet.`);
    setBusy(pkg.id);
    try {
      const token = await tokenValue();
      if (!token) return setError(DOWNLOAD_NEEDS_TOKEN);
      const response = await fetch(url, { headers: { Authorization: basicAuthorization(token) }, credentials: 'omit' });
      if (!response.ok) return setError(`Download of ${pkg.filename} failed: ${response.status} ${response.statusText}`.trim());
      const objectUrl = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = objectUrl;
      link.download = pkg.filename;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(objectUrl), 30_000);
      // The download counts: show the new figure.
      void queryClient.invalidateQueries({ queryKey: packageKeys.inRepository(workspaceId, repository.id) });
    } catch (failure) {
      setError(`Download of ${pkg.filename} failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    } finally {
      setBusy(undefined);
    }
  }
  return { download, busy, error, ready: Boolean(snippets.data && tokens.data) };
}

export function PackagesTab(props: PackagesTabProps) {
  const { workspaceId, repository } = props;
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(0);
  // Only a changed search goes back to the first page: a timer started when the tab opens
  // would otherwise undo a page turned within its delay.
  useEffect(() => {
    const next = search.trim();
    if (next === q) return;
    const timer = setTimeout(() => {
      setQ(next);
      setPage(0);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search, q]);
  const packages = usePackages(workspaceId, repository.id, { q, page });
  const deletePackage = useDeletePackage(workspaceId, repository.id);
  const { download, busy, error, ready } = useDownload(props);
  const pages = pageCount(packages.data?.total ?? 0);
  // A deletion can empty the last page: step back to the new last one.
  useEffect(() => {
    if (packages.data && page > 0 && page >= pages) setPage(pages - 1);
  }, [packages.data, page, pages]);

  const [promoting, setPromoting] = useState<RepositoryPackage>();
  const [notice, setNotice] = useState<string>();

  const remove = (pkg: RepositoryPackage) => {
    if (window.confirm(packageDeleteConfirmation(pkg.name, pkg.version))) deletePackage.mutate(pkg.id);
  };

  return (
    <div className="pk-stack">
      <div className="pk-spread pk-wrap">
        <label className="pk-search">
          <Icon name="search" size={17} />
          <span className="pk-visually-hidden">Search packages</span>
          <input className="pk-input" type="search" placeholder="Search packages..." value={search} onChange={(event) => setSearch(event.target.value)} />
        </label>
        {packages.data && (
          <span className="pk-muted" role="status">
            {packages.data.total} {packages.data.total === 1 ? 'package' : 'packages'}
          </span>
        )}
      </div>
      {notice && (
        <div className="pk-alert pk-alert--success" role="status">
          {notice}
        </div>
      )}
      {error && (
        <Alert>{error}</Alert>
      )}
      {packages.isPending ? (
        <Spinner label="Loading packages" />
      ) : packages.isError ? (
        <ErrorPanel title="Could not load packages" message={packages.error.message} onRetry={() => void packages.refetch()} />
      ) : packages.data.items.length === 0 ? (
        <EmptyState icon="package" title={q ? 'No packages found' : 'No packages yet'}>
          {q ? `Nothing matches "${q}".` : 'Upload a package on the Upload tab to publish it here.'}
        </EmptyState>
      ) : (
        <>
          <div className="pk-table-wrap">
            <table className="pk-table pk-packages-table" aria-label="Packages">
              <thead>
                <tr>
                  <PackageColumnHeaders />
                  <th scope="col">Downloads</th>
                  <th scope="col">Published</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {packages.data.items.map((pkg) => (
                  <tr key={pkg.id}>
                    <PackageCells pkg={pkg} detailPath={packageDetailPath(workspaceId, repository.id, pkg.id)} />
                    <td data-label="Downloads">{pkg.downloads}</td>
                    <td data-label="Published">{formatDate(pkg.publishedAt)}</td>
                    <td data-label="Actions">
                      <div className="pk-row pk-row--tight">
                        <IconButton label={`Download ${pkg.filename}`} icon="download" disabled={!ready || busy === pkg.id} onClick={() => void download(pkg)} />
                        <IconButton label={`Promote ${pkg.name} ${pkg.version}`} icon="upload" onClick={() => setPromoting(pkg)} />
                        <IconButton label={`Delete ${pkg.name} ${pkg.version}`} icon="trash" variant="danger" disabled={deletePackage.isPending} onClick={() => remove(pkg)} />
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav className="pk-spread pk-wrap" aria-label="Pages">
            <span className="pk-muted">
              Page {page + 1} of {pages} · {PACKAGE_PAGE_SIZE} per page
            </span>
            <div className="pk-row">
              <Button size="sm" disabled={page === 0} onClick={() => setPage(page - 1)}>
                Previous
              </Button>
              <Button size="sm" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
                Next
              </Button>
            </div>
          </nav>
        </>
      )}
      <PromoteDialog
        workspaceId={workspaceId}
        repository={repository}
        pkg={promoting}
        onClose={() => setPromoting(undefined)}
        onDone={(message) => {
          setPromoting(undefined);
          setNotice(message);
        }}
      />
    </div>
  );
}
