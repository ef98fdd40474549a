import { Button, Card, CodeBlock, CopyButton, Icon, type Repository } from '@packyard/console-kit';
import { debKeyCommand, rpmKeyCommand, SECURITY_NOTES } from '../repository-rules';
import { useSnippets } from '../repository-resources';

export function KeysTab({ repository }: { repository: Repository }) {
  const snippets = useSnippets(repository.id);
  const publicKeyUrl = snippets.data?.publicKeyUrl;
  const keyCommand = snippets.data
    ? repository.kind === 'DEB'
      ? debKeyCommand(snippets.data.repositoryUrl, repository.name)
      : rpmKeyCommand(snippets.data.publicKeyUrl)
    : undefined;
  return (
    <div className="pk-stack">
      <Card>
        <h2 className="pk-section-title">GPG Public Key</h2>
        <p className="pk-muted">Every index of this repository is signed with this key.</p>
        <div className="pk-field">
          <label className="pk-field__label" htmlFor="public-key-url">
            Public Key URL
          </label>
          <div className="pk-row pk-key-url">
            <input id="public-key-url" className="pk-input pk-mono" readOnly value={publicKeyUrl ?? 'Loading...'} />
            <CopyButton text={publicKeyUrl ?? ''} label="Copy" withText />
            <Button icon="external" disabled={!publicKeyUrl} onClick={() => publicKeyUrl && window.open(publicKeyUrl, '_blank', 'noopener,noreferrer')}>
              View
            </Button>
          </div>
        </div>
      </Card>
      <Card>
        <h2 className="pk-section-title">{repository.kind === 'DEB' ? 'Install the key for APT' : 'Import the key for RPM'}</h2>
        <p className="pk-muted">
          {repository.kind === 'DEB'
            ? 'Downloads the key into a keyring file named after this repository, which the APT source line points at.'
            : 'Imports the key into the RPM database so dnf and yum can check signatures.'}
        </p>
        {keyCommand ? <CodeBlock wrap code={keyCommand} copyLabel="Copy key command" /> : <p className="pk-muted">Loading...</p>}
      </Card>
      <Card>
        <h2 className="pk-section-title">Security Information</h2>
        <ul className="pk-security-list">
          {SECURITY_NOTES.map((note) => (
            <li key={note}>
              <Icon name="shield" size={16} /> {note}
            </li>
          ))}
        </ul>
      </Card>
    </div>
  );
}
