import { Button, Card, CodeBlock, copyText, formatBytes, formatDate, type Repository } from '@packyard/console-kit';
import { useState } from 'react';
import { displayValue } from '../repository-rules';
import { useSnippets } from '../repository-resources';

export function OverviewTab({ repository }: { repository: Repository }) {
  const snippets = useSnippets(repository.id);
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
              <dd>{displayValue(repository.codename)}</dd>
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
        </dl>
        <div className="pk-row pk-repo-actions">
          <Button icon="external" disabled={!repositoryUrl} onClick={() => repositoryUrl && window.open(repositoryUrl, '_blank', 'noopener,noreferrer')}>
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
        {snippets.isPending ? <p className="pk-muted">Loading...</p> : snippets.isError ? <p className="pk-alert">{snippets.error.message}</p> : <CodeBlock wrap code={setupText ?? ''} copyLabel={repository.kind === 'DEB' ? 'Copy APT setup' : 'Copy YUM setup'} />}
      </Card>
    </div>
  );
}
