import { ApiError, Badge, Card, CodeBlock, DownloadChart, EmptyState, ErrorPanel, formatBytes, formatDate, Icon, type Repository, Skeleton } from '@packyard/console-kit';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { DOWNLOAD_SPLITS, DOWNLOAD_WINDOWS, type DownloadSplit, packageDetailPath, packageInstallCommand } from '../repository-rules';
import { type PackageDetails, usePackageDetails, usePackageDownloads } from '../repository-resources';

/** paths shown before "Show all" (the server sends at most 10,000) */
const FILES_SHOWN_FIRST = 50;

function Facts({ details }: { details: PackageDetails }) {
  const pkg = details.package;
  const rows: [string, string][] = [
    ['Version', pkg.version],
    ['Architecture', pkg.architecture],
    ['Size', formatBytes(pkg.sizeBytes)],
    ['Published', formatDate(pkg.publishedAt)],
    ['Downloads', String(pkg.downloads)],
    ['File', pkg.filename],
    ...details.facts.map((fact): [string, string] => [fact.name, fact.value]),
  ];
  return (
    <dl className="pk-facts">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd className={name === 'File' ? 'pk-mono' : undefined}>{value}</dd>
        </div>
      ))}
      <div>
        <dt>Distributions</dt>
        <dd>
          {details.distributions.map((distribution) => (
            <Badge key={distribution}>{distribution}</Badge>
          ))}
        </dd>
      </div>
    </dl>
  );
}

function Checksums({ checksums }: { checksums: PackageDetails['checksums'] }) {
  const all: [string, string | null][] = [
    ['SHA-256', checksums.sha256],
    ['SHA-1', checksums.sha1],
    ['MD5', checksums.md5],
    ['SHA-512', checksums.sha512],
  ];
  const rows = all.filter((row): row is [string, string] => Boolean(row[1]));
  return (
    <dl className="pk-facts pk-facts--wide">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd className="pk-mono pk-break">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Downloads({ workspaceId, repositoryId, packageId }: { workspaceId: string; repositoryId: string; packageId: string }) {
  const [windowId, setWindowId] = useState<string>('30');
  const [by, setBy] = useState<DownloadSplit>('');
  const window = DOWNLOAD_WINDOWS.find((item) => item.id === windowId) ?? DOWNLOAD_WINDOWS[1];
  const downloads = usePackageDownloads(workspaceId, repositoryId, packageId, window, by);
  return (
    <Card>
      <div className="pk-spread pk-wrap">
        <h2 className="pk-section-title">Downloads</h2>
        <div className="pk-row pk-wrap">
            <select className="pk-select" value={windowId} onChange={(event) => setWindowId(event.target.value)} aria-label="Time range">
              {DOWNLOAD_WINDOWS.map((item) => (
                <option key={item.id} value={item.id}>
                  {item.label}
                </option>
              ))}
            </select>
            <select className="pk-select" value={by} onChange={(event) => setBy(event.target.value as DownloadSplit)} aria-label="Split">
              {DOWNLOAD_SPLITS.map((item) => (
                <option key={item.id} value={item.id}>
                  {item.label}
                </option>
              ))}
            </select>
        </div>
      </div>
      {downloads.isPending ? (
        <Skeleton height={160} />
      ) : downloads.isError ? (
        <ErrorPanel title="Could not load downloads" message={downloads.error.message} onRetry={() => void downloads.refetch()} />
      ) : (
        <DownloadChart
          title={`Downloads ${window.period === 'hour' ? 'per hour, last 48 hours' : `per day, last ${window.days} days`}${by === 'version' ? ', by version' : by === 'token' ? ', by token' : ''}`}
          buckets={downloads.data.buckets}
          lines={downloads.data.lines.map((line) => ({ label: line.label, counts: line.counts }))}
          unit={window.period}
        />
      )}
    </Card>
  );
}

function Files({ details }: { details: PackageDetails }) {
  const [all, setAll] = useState(false);
  const shown = all ? details.files : details.files.slice(0, FILES_SHOWN_FIRST);
  return (
    <Card>
      <h2 className="pk-section-title">
        Files <span className="pk-muted">({details.filesTotal})</span>
      </h2>
      {details.filesNote && <p className="pk-muted">Note: {details.filesNote}.</p>}
      {details.files.length > 0 && (
        <ul className="pk-file-list pk-mono" aria-label="Files">
          {shown.map((path) => (
            <li key={path}>{path}</li>
          ))}
        </ul>
      )}
      {details.files.length > FILES_SHOWN_FIRST && (
        <button type="button" className="pk-link-button" onClick={() => setAll(!all)}>
          {all ? `Show the first ${FILES_SHOWN_FIRST}` : `Show all ${details.files.length}`}
        </button>
      )}
    </Card>
  );
}

/** One package (the Packages table's name leads here): what its file says, its downloads, and how to install this version. */
export function PackageDetailView({ workspaceId, repository, packageId }: { workspaceId: string; repository: Repository; packageId: string }) {
  const details = usePackageDetails(workspaceId, repository.id, packageId);
  const back = `/workspaces/${workspaceId}/repos/${repository.id}/packages`;
  const backLink = (
    <Link to={back} className="pk-row" style={{ gap: 4, fontWeight: 600, fontSize: 14 }}>
      <Icon name="arrowLeft" size={15} /> All packages
    </Link>
  );
  if (details.isPending) {
    return (
      <div className="pk-stack" aria-busy="true" aria-label="Loading package">
        <Skeleton width={260} height={26} />
        <Skeleton height={180} />
      </div>
    );
  }
  if (details.isError) {
    if (details.error instanceof ApiError && details.error.status === 404) {
      return (
        <EmptyState icon="package" title="Package not found" action={backLink}>
          The package you're looking for doesn't exist or has been deleted.
        </EmptyState>
      );
    }
    return <ErrorPanel title="Could not load the package" message={details.error.message} onRetry={() => void details.refetch()} />;
  }
  const { package: pkg } = details.data;
  return (
    <div className="pk-stack" aria-label={`Package ${pkg.name} ${pkg.version}`}>
      {backLink}
      <header>
        <h2 className="pk-package-title">
          {pkg.name} <span className="pk-mono pk-muted">{pkg.version}</span>
        </h2>
        {details.data.summary && <p className="pk-package-summary">{details.data.summary}</p>}
      </header>
      <Card>
        <h2 className="pk-section-title">Install this version</h2>
        <CodeBlock code={packageInstallCommand(repository.kind, pkg.name, pkg.version)} copyLabel="Copy install command" wrap />
      </Card>
      <div className="pk-package-grid">
        <Card>
          <h2 className="pk-section-title">Details</h2>
          <Facts details={details.data} />
        </Card>
        <Card>
          <h2 className="pk-section-title">Description</h2>
          {details.data.description ? <p className="pk-description">{details.data.description}</p> : <p className="pk-muted">No description.</p>}
        </Card>
      </div>
      <Downloads workspaceId={workspaceId} repositoryId={repository.id} packageId={pkg.id} />
      <Card>
        <h2 className="pk-section-title">Dependencies</h2>
        {details.data.relations.length === 0 ? (
          <p className="pk-muted">This package declares no relations to other packages.</p>
        ) : (
          <dl className="pk-facts pk-facts--wide">
            {details.data.relations.map((relation) => (
              <div key={relation.relation}>
                <dt>{relation.relation}</dt>
                <dd>
                  <ul className="pk-relation-list pk-mono" aria-label={relation.relation}>
                    {relation.items.map((item) => (
                      <li key={item}>{item}</li>
                    ))}
                  </ul>
                </dd>
              </div>
            ))}
          </dl>
        )}
      </Card>
      <Files details={details.data} />
      <Card>
        <h2 className="pk-section-title">Versions</h2>
        <div className="pk-table-wrap">
          <table className="pk-table" aria-label="Versions">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Architecture</th>
                <th scope="col">Distribution</th>
                <th scope="col">Downloads</th>
                <th scope="col">Published</th>
              </tr>
            </thead>
            <tbody>
              {details.data.versions.map((version) => (
                <tr key={version.id} aria-current={version.id === pkg.id ? 'true' : undefined}>
                  <td data-label="Version" className="pk-mono">
                    {version.id === pkg.id ? <strong>{version.version}</strong> : <Link to={packageDetailPath(workspaceId, repository.id, version.id)}>{version.version}</Link>}
                  </td>
                  <td data-label="Architecture">{version.architecture}</td>
                  <td data-label="Distribution" className="pk-mono">
                    {version.distribution}
                  </td>
                  <td data-label="Downloads">{version.downloads}</td>
                  <td data-label="Published">{formatDate(version.publishedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>
      <Card>
        <h2 className="pk-section-title">Checksums</h2>
        <Checksums checksums={details.data.checksums} />
      </Card>
    </div>
  );
}
