import { Alert, Button, Card, CodeBlock, copyText, formatBytes, formatDate, type Repository, Select } from '@packyard/console-kit';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { BROWSE_SEGMENT, codenameNote, displayValue, distributionChoices } from '../repository-rules';
import { useSnippets } from '../repository-resources';

export function OverviewTab({ workspaceId, repository }: { workspaceId: string; repository: Repository }) {
  const navigate = useNavigate();
  const defaults = useSnippets(repository.id);
  // DEB: the setup text for another distribution that holds packages, once one is picked
  const [picked, setPicked] = useState<string>();
  const distributions = distributionChoices(defaults.data?.distributions);
  const pickedChoice = distributions.find((option) => option.value === picked);
  const chosen = useSnippets(repository.id, pickedChoice && { distro: pickedChoice.distro, codename: pickedChoice.codename }, Boolean(pickedChoice));
  const snippets = pickedChoice ? chosen : defaults;
  const stocked = defaults.data?.distributions ?? [];
  const note = repository.kind === 'DEB' ? codenameNote(repository.codename) : undefined;
  const [copied, setCopied] = useState(false);
  const repositoryUrl = snippets.data?.repositoryUrl;
  const setupText = repository.kind === 'DEB' ? snippets.data?.apt : snippets.data?.yum;
  const copyUrl = () => {
    if (!repositoryUrl) return;
    copyText(repositoryUrl)
      .then(() => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      })
      .catch((error) => console.error('Copy failed', error));
  };
  return (
    <div className="pk-repo-overview">
      <Card>
        <h2 className="pk-section-title">Repository Information</h2>
        <dl className="pk-meta">
          <dt>Type</dt>
          <dd>{repository.kind === 'DEB' ? 'DEB (Debian/Ubuntu)' : 'RPM (RedHat/CentOS)'}</dd>
          {repository.kind === 'DEB' && (
            <>
              <dt>Codename</dt>
              <dd>
                {displayValue(repository.codename)}
                {note && <p className="pk-muted pk-small pk-codename-note">{note}</p>}
              </dd>
              <dt>Component</dt>
              <dd>{displayValue(repository.component)}</dd>
            </>
          )}
          <dt>Packages</dt>
          <dd>{repository.packageCount}</dd>
          <dt>Storage Used</dt>
          <dd>{formatBytes(repository.sizeBytes)}</dd>
          <dt>Created</dt>
          <dd>{formatDate(repository.createdAt)}</dd>
          <dt>Distributions</dt>
          <dd data-testid="stocked-distributions">
            {defaults.isPending ? 'Loading...' : stocked.length === 0 ? 'None yet: upload a package for a distribution' : stocked.map(({ distro, version, packageCount }) => `${distro}/${version} (${packageCount})`).join(', ')}
          </dd>
        </dl>
        <div className="pk-row pk-repo-actions">
          <Button icon="external" onClick={() => navigate(`/workspaces/${workspaceId}/repos/${repository.id}/${BROWSE_SEGMENT}`)}>
            View Public Repository
          </Button>
          <Button icon={copied ? 'check' : 'copy'} disabled={!repositoryUrl} onClick={copyUrl} aria-live="polite">
            {copied ? 'Copied' : 'Copy Repository URL'}
          </Button>
        </div>
      </Card>
      <Card>
        <h2 className="pk-section-title">{repository.kind === 'DEB' ? 'APT Setup' : 'YUM Setup'}</h2>
        <p className="pk-muted">
          {repository.kind === 'DEB'
            ? 'Add this repository to a Debian or Ubuntu machine. Replace YOUR_TOKEN with a repository token from the Install tab.'
            : 'Add this repository to a RedHat, CentOS or Fedora machine. Replace YOUR_TOKEN with a repository token from the Install tab.'}
        </p>
        {repository.kind === 'DEB' && defaults.data && (
          <Select
            label="Distribution"
            name="distribution"
            value={picked ?? `${defaults.data.distro}/${defaults.data.codename}`}
            onChange={(event) => setPicked(event.target.value)}
            options={distributions.some((option) => option.value === `${defaults.data.distro}/${defaults.data.codename}`) ? distributions : [{ value: `${defaults.data.distro}/${defaults.data.codename}`, label: defaults.data.codename }, ...distributions]}
          />
        )}
        {snippets.isPending ? <p className="pk-muted">Loading...</p> : snippets.isError ? <Alert>{snippets.error.message}</Alert> : <CodeBlock wrap code={setupText ?? ''} copyLabel={repository.kind === 'DEB' ? 'Copy APT setup' : 'Copy YUM setup'} />}
      </Card>
    </div>
  );
}
