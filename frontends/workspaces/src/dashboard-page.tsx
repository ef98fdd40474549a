import {
  Card,
  DOWNLOAD_SUMMARY_DAYS,
  DownloadChart,
  EmptyState,
  ErrorPanel,
  formatBytes,
  formatDate,
  Icon,
  type IconName,
  PageHeader,
  ProgressBar,
  Skeleton,
  usagePercent,
  useDownloadSummary,
  useUsageSummary,
  useWorkspaces,
} from '@packyard/console-kit';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

export const DASHBOARD_WORKSPACE_LIMIT = 5;

function StatCard({ icon, label, value, children }: { icon: IconName; label: string; value: ReactNode; children?: ReactNode }) {
  return (
    <Card>
      <div className="pk-stat__label">
        <span className="pk-stat__icon">
          <Icon name={icon} size={16} />
        </span>
        {label}
      </div>
      <div className="pk-stat__value">{value}</div>
      {children}
    </Card>
  );
}

function UsageCard({ icon, label, used, limit }: { icon: IconName; label: string; used: number; limit: number }) {
  const percent = usagePercent(used, limit);
  return (
    <StatCard icon={icon} label={label} value={formatBytes(used)}>
      <ProgressBar percent={percent} label={`${label}: ${percent}%`} />
      <div className="pk-stat__detail">
        {percent}% of {formatBytes(limit)}
      </div>
    </StatCard>
  );
}

/** Downloads across the user's workspaces: the chart per day and the most downloaded packages. */
function DownloadsCard({ workspaceNames }: { workspaceNames: Map<string, string> }) {
  const downloads = useDownloadSummary();
  return (
    <Card>
      <h2 className="pk-card__title">Downloads</h2>
      <p className="pk-card__subtitle">Package downloads in the last {DOWNLOAD_SUMMARY_DAYS} days, across your workspaces</p>
      {downloads.isPending ? (
        <Skeleton height={160} />
      ) : downloads.isError ? (
        <ErrorPanel title="Could not load downloads" message={downloads.error.message} onRetry={() => void downloads.refetch()} />
      ) : (
        <div className="pk-downloads">
          <DownloadChart title={`Downloads per day, last ${DOWNLOAD_SUMMARY_DAYS} days`} buckets={downloads.data.buckets} lines={[{ label: 'Downloads', counts: downloads.data.counts }]} />
          <div>
            <h3 className="pk-downloads__heading">Top packages</h3>
            {downloads.data.topPackages.length === 0 ? (
              <p className="pk-muted">No package was downloaded in this time.</p>
            ) : (
              <ol className="pk-list" aria-label="Top packages">
                {downloads.data.topPackages.map((entry) => (
                  <li key={`${entry.repositoryId}/${entry.name}`} className="pk-spread" style={{ alignItems: 'center' }}>
                    <div style={{ minWidth: 0 }}>
                      <Link to={`/workspaces/${entry.workspaceId}/repos/${entry.repositoryId}/packages/${entry.packageId}`} style={{ fontWeight: 650 }}>
                        {entry.name}
                      </Link>
                      <div className="pk-muted">{workspaceNames.get(entry.workspaceId) ?? ''}</div>
                    </div>
                    <span className="pk-muted">
                      {entry.downloads} {entry.downloads === 1 ? 'download' : 'downloads'}
                    </span>
                  </li>
                ))}
              </ol>
            )}
          </div>
        </div>
      )}
    </Card>
  );
}

export default function DashboardPage() {
  const workspaces = useWorkspaces();
  const usage = useUsageSummary();
  const list = workspaces.data ?? [];
  const repositoryTotal = list.reduce((sum, workspace) => sum + (workspace.repositoryCount ?? 0), 0);
  const loadingValue = <Skeleton width={80} height={30} />;

  return (
    <div className="pk-page">
      <PageHeader title="Dashboard" description="Your workspaces, repositories and usage at a glance." />
      {workspaces.isError && <ErrorPanel title="Could not load workspaces" message={workspaces.error.message} onRetry={() => void workspaces.refetch()} />}
      <div className="pk-stats">
        <StatCard icon="folder" label="Workspaces" value={workspaces.isPending ? loadingValue : list.length} />
        <StatCard icon="package" label="Repositories" value={workspaces.isPending ? loadingValue : repositoryTotal} />
        {usage.data ? (
          <>
            <UsageCard icon="database" label="Storage Used" used={usage.data.storageBytesUsed} limit={usage.data.storageBytesLimit} />
            <UsageCard icon="activity" label="Bandwidth Used" used={usage.data.egressBytesUsed} limit={usage.data.egressBytesLimit} />
          </>
        ) : (
          <>
            <StatCard icon="database" label="Storage Used" value={usage.isError ? '—' : loadingValue} />
            <StatCard icon="activity" label="Bandwidth Used" value={usage.isError ? '—' : loadingValue} />
          </>
        )}
      </div>
      <Card>
        <div className="pk-spread">
          <div>
            <h2 className="pk-card__title">Workspaces</h2>
            <p className="pk-card__subtitle">Your most recent workspaces</p>
          </div>
          <Link to="/workspaces" className="pk-row" style={{ gap: 4, fontWeight: 600, fontSize: 14 }}>
            View all <Icon name="chevronRight" size={15} />
          </Link>
        </div>
        {workspaces.isPending ? (
          <div className="pk-stack" style={{ gap: 12 }}>
            <Skeleton height={44} />
            <Skeleton height={44} />
          </div>
        ) : list.length === 0 ? (
          <EmptyState title="No workspaces yet" action={<Link to="/workspaces">Create your first workspace</Link>}>
            Workspaces group your repositories, for example per team or product.
          </EmptyState>
        ) : (
          <ul className="pk-list" aria-label="Recent workspaces">
            {list.slice(0, DASHBOARD_WORKSPACE_LIMIT).map((workspace) => (
              <li key={workspace.id} className="pk-spread" style={{ alignItems: 'center', flexWrap: 'wrap' }}>
                <div style={{ minWidth: 0 }}>
                  <Link to={`/workspaces/${workspace.id}/repos`} style={{ fontWeight: 650 }}>
                    {workspace.name}
                  </Link>
                  <div className="pk-muted pk-mono">/{workspace.slug}</div>
                </div>
                <div className="pk-row pk-muted" style={{ fontSize: 13.5, gap: 16 }}>
                  <span>
                    {workspace.repositoryCount} {workspace.repositoryCount === 1 ? 'repository' : 'repositories'}
                  </span>
                  <span>{formatBytes(workspace.storageBytesUsed)}</span>
                  <span>Created {formatDate(workspace.createdAt)}</span>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
      {list.length > 0 && <DownloadsCard workspaceNames={new Map(list.map((workspace) => [workspace.id, workspace.name]))} />}
    </div>
  );
}
