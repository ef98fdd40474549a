import { Badge, Button, Card, CodeBlock, CopyButton, formatDate, Icon, type Repository } from '@packyard/console-kit';
import { debKeyCommand, KEY_ROLL_CONFIRMATION, KEY_STATUS_LABELS, keyNearExpiry, rpmKeyCommand, SECURITY_NOTES } from '../repository-rules';
import { useRollSigningKey, useSigningKeys, useSnippets } from '../repository-resources';

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
      <SigningKeysCard repositoryId={repository.id} />
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

/** The repository's keys with their expiry, and the roll action (new key, overlap, then alone). */
function SigningKeysCard({ repositoryId }: { repositoryId: string }) {
  const keys = useSigningKeys(repositoryId);
  const roll = useRollSigningKey(repositoryId);
  const rolling = keys.data?.some((key) => key.status === 'previous') ?? false;
  return (
    <Card>
      <div className="pk-spread">
        <h2 className="pk-section-title">Signing Keys</h2>
        <Button icon="refresh" disabled={!keys.data || rolling || roll.isPending} onClick={() => window.confirm(KEY_ROLL_CONFIRMATION) && roll.mutate()}>
          {roll.isPending ? 'Rolling...' : 'Roll Key'}
        </Button>
      </div>
      {roll.isError ? <p className="pk-key-error" role="alert">{roll.error instanceof Error ? roll.error.message : 'Rolling the key failed'}</p> : null}
      {!keys.data ? (
        <p className="pk-muted">Loading...</p>
      ) : (
        <ul className="pk-key-list" aria-label="Signing keys">
          {keys.data.map((key) => (
            <li key={key.fingerprint}>
              <code className="pk-mono">{key.fingerprint}</code> <Badge tone={key.status === 'current' ? 'green' : key.status === 'previous' ? 'blue' : 'neutral'}>{KEY_STATUS_LABELS[key.status]}</Badge>
              {keyNearExpiry(key) ? <Badge tone="amber">Expires soon</Badge> : null}
              <span className="pk-muted">
                {' '}
                Created {formatDate(key.createdAt)} · {key.expiresAt ? `Rolled before ${formatDate(key.expiresAt)}` : 'No expiry'}
                {key.signsUntil ? ` · Signs until ${formatDate(key.signsUntil)}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
