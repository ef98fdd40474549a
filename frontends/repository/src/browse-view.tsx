import { Alert, Card, CopyButton, EmptyState, type Repository, Spinner } from '@packyard/console-kit';
import { Link } from 'react-router-dom';
import { PackageCells, PackageColumnHeaders } from './package-cells';
import { distributionEntryPoint, packagesIn } from './repository-rules';
import { useAllPackages, useSnippets } from './repository-resources';

/**
 * "View Public Repository": what apt and dnf see of this repository, for its owner. The
 * edge itself answers only clients with a token (and has no listing), so the console shows
 * each distribution that holds packages, where a client starts reading it, and its packages.
 */
export function BrowseView({ workspaceId, repository }: { workspaceId: string; repository: Repository }) {
  const snippets = useSnippets(repository.id);
  const packages = useAllPackages(workspaceId, repository.id);
  const back = `/workspaces/${workspaceId}/repos/${repository.id}`;
  if (snippets.isPending || packages.isPending) return <Spinner label="Loading the published repository" />;
  if (snippets.isError || packages.isError) {
    return (
      <Alert>{(snippets.error ?? packages.error)?.message}</Alert>
    );
  }
  const { repositoryUrl, distributions } = snippets.data;
  return (
    <div className="pk-stack" aria-label="Public repository">
      <Card>
        <h2 className="pk-section-title">Public repository</h2>
        <p className="pk-muted">
          apt and dnf read it at this address with a repository token as user name (<Link to={`${back}/install`}>Install tab</Link>).
        </p>
        <div className="pk-row">
          <code className="pk-mono" data-testid="repository-url">
            {repositoryUrl}
          </code>
          <CopyButton text={repositoryUrl} label="Copy repository URL" />
        </div>
      </Card>
      {distributions.length === 0 ? (
        <EmptyState icon="package" title="Nothing published yet">
          Upload a package on the <Link to={`${back}/upload`}>Upload tab</Link>: it is published for the distribution you choose.
        </EmptyState>
      ) : (
        distributions.map(({ distro, version, packageCount }) => {
          const shown = packagesIn(packages.data, distro, version);
          const entryPoint = distributionEntryPoint(repositoryUrl, repository.kind, distro, version);
          return (
            <section key={`${distro}/${version}`} className="pk-card" aria-label={`${distro}/${version}`}>
              <h3 className="pk-section-title">
                {distro}/{version} <span className="pk-muted">· {packageCount} {packageCount === 1 ? 'package' : 'packages'}</span>
              </h3>
              <p className="pk-muted pk-small pk-mono">{entryPoint}</p>
              <div className="pk-table-wrap">
                <table className="pk-table" aria-label={`Packages in ${distro}/${version}`}>
                  <thead>
                    <tr>
                      <PackageColumnHeaders />
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((pkg) => (
                      <tr key={pkg.id}>
                        <PackageCells pkg={pkg} />
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          );
        })
      )}
    </div>
  );
}
