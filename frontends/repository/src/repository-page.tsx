import { ApiError, Badge, EmptyState, ErrorPanel, formatBytes, formatDate, Icon, type Repository, Skeleton, TabPanel, Tabs, useRepository, useWorkspace } from '@packyard/console-kit';
import { useCallback, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { BrowseView } from './browse-view';
import { PackageDetailView } from './packages/package-detail-view';
import { codenameNote, isBrowsePath, packageIdFromPath, REPOSITORY_TABS, type RepositoryTab, tabFromPath } from './repository-rules';
import { InstallTab } from './tabs/install-tab';
import { KeysTab } from './tabs/keys-tab';
import { OverviewTab } from './tabs/overview-tab';
import { PackagesTab } from './tabs/packages-tab';
import { SettingsTab } from './tabs/settings-tab';
import { UploadTab } from './tabs/upload-tab';
import './repository.css';

/** Token values this page holds: created in this session or revealed (spec §4, repo token). */
export type KnownTokens = Record<string, string>;

function Breadcrumb({ workspaceId, workspaceName, repositoryName }: { workspaceId: string; workspaceName?: string; repositoryName?: string }) {
  return (
    <nav aria-label="Breadcrumb" className="pk-breadcrumb">
      <ol>
        <li>
          <Link to="/workspaces">Workspaces</Link>
        </li>
        <li>
          <span className="pk-breadcrumb__separator" aria-hidden="true">
            /
          </span>
          <Link to={`/workspaces/${workspaceId}/repos`}>{workspaceName ?? '…'}</Link>
        </li>
        <li>
          <span className="pk-breadcrumb__separator" aria-hidden="true">
            /
          </span>
          <span aria-current="page">{repositoryName ?? '…'}</span>
        </li>
      </ol>
    </nav>
  );
}

function RepositoryHeader({ repository }: { repository: Repository }) {
  return (
    <header className="pk-page-header">
      <div className="pk-page-header__text">
        <div className="pk-row">
          <h1 className="pk-page-header__title">{repository.name}</h1>
          <Badge tone={repository.kind === 'DEB' ? 'blue' : 'purple'}>{repository.kind.toUpperCase()}</Badge>
        </div>
        <ul className="pk-repo-facts" aria-label="Repository facts">
          <li>
            <Icon name="package" size={15} /> {repository.packageCount} {repository.packageCount === 1 ? 'package' : 'packages'}
          </li>
          <li>
            <Icon name="database" size={15} /> {formatBytes(repository.sizeBytes)}
          </li>
          <li>Created {formatDate(repository.createdAt)}</li>
          {repository.kind === 'DEB' && (
            <>
              <li title={codenameNote(repository.codename)}>Codename: {repository.codename || 'Not set'}</li>
              <li>Component: {repository.component || 'Not set'}</li>
            </>
          )}
        </ul>
      </div>
    </header>
  );
}

function LoadingSkeleton() {
  return (
    <div className="pk-stack" aria-busy="true" aria-label="Loading repository">
      <Skeleton width={260} height={30} />
      <Skeleton width="60%" height={16} />
      <Skeleton width="100%" height={42} />
      <Skeleton width="100%" height={220} />
    </div>
  );
}

function NotFound({ workspaceId }: { workspaceId: string }) {
  return (
    <EmptyState
      icon="alert"
      title="Repository not found"
      action={
        <Link className="pk-button pk-button--secondary pk-button--md" to={`/workspaces/${workspaceId}/repos`}>
          <Icon name="arrowLeft" size={17} /> Back to Repositories
        </Link>
      }
    >
      The repository you're looking for doesn't exist or has been deleted.
    </EmptyState>
  );
}

export default function RepositoryPage() {
  const params = useParams();
  const workspaceId = params.workspaceId ?? '';
  const repositoryId = params.id ?? '';
  const tab = tabFromPath(params['*']);
  const browsing = isBrowsePath(params['*']);
  const packageId = packageIdFromPath(params['*']);
  const navigate = useNavigate();
  const workspace = useWorkspace(workspaceId);
  const repository = useRepository(workspaceId, repositoryId);
  const [knownTokens, setKnownTokens] = useState<KnownTokens>({});
  const rememberToken = useCallback((tokenId: string, value: string) => setKnownTokens((known) => ({ ...known, [tokenId]: value })), []);
  const openTab = (next: string) => navigate(`/workspaces/${workspaceId}/repos/${repositoryId}/${next}`);

  const missing = repository.isError && repository.error instanceof ApiError && repository.error.status === 404;
  return (
    <div className="pk-page">
      <Breadcrumb workspaceId={workspaceId} workspaceName={workspace.data?.name} repositoryName={repository.data?.name} />
      {repository.isPending ? (
        <LoadingSkeleton />
      ) : missing ? (
        <NotFound workspaceId={workspaceId} />
      ) : repository.isError ? (
        <ErrorPanel title="Could not load the repository" message={repository.error.message} onRetry={() => void repository.refetch()} />
      ) : (
        <>
          <RepositoryHeader repository={repository.data} />
          <Tabs tabs={REPOSITORY_TABS.map((item) => ({ ...item }))} active={browsing ? '' : tab} onChange={openTab} label="Repository sections" />
          {browsing ? (
            <BrowseView workspaceId={workspaceId} repository={repository.data} />
          ) : (
            <TabPanel id={tab}>
              {packageId ? (
                <PackageDetailView workspaceId={workspaceId} repository={repository.data} packageId={packageId} />
              ) : (
                <ActiveTab tab={tab} workspaceId={workspaceId} repository={repository.data} knownTokens={knownTokens} rememberToken={rememberToken} />
              )}
            </TabPanel>
          )}
        </>
      )}
    </div>
  );
}

function ActiveTab({ tab, ...props }: { tab: RepositoryTab; workspaceId: string; repository: Repository; knownTokens: KnownTokens; rememberToken: (tokenId: string, value: string) => void }) {
  switch (tab) {
    case 'overview':
      return <OverviewTab workspaceId={props.workspaceId} repository={props.repository} />;
    case 'install':
      return <InstallTab {...props} />;
    case 'packages':
      return <PackagesTab {...props} />;
    case 'upload':
      return <UploadTab workspaceId={props.workspaceId} repository={props.repository} />;
    case 'keys':
      return <KeysTab repository={props.repository} />;
    case 'settings':
      return <SettingsTab workspaceId={props.workspaceId} repository={props.repository} />;
  }
}
