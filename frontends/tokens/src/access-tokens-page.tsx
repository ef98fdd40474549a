import {
  type AccessToken,
  Alert,
  Badge,
  Button,
  Card,
  Dialog,
  EmptyState,
  errorMessage,
  ErrorPanel,
  Field,
  formatDate,
  IconButton,
  PageHeader,
  ScopeCheckboxes,
  SecretShownOnceDialog,
  Select,
  type TokenScope,
  useAccessTokens,
  useAllRepositories,
  useCreateAccessToken,
  useDeleteAccessToken,
} from '@packyard/console-kit';
import { type FormEvent, useState } from 'react';
import { canCreateToken, DEFAULT_SCOPES, SCOPE_TONES, tokenDeleteConfirmation } from './token-rules';

function CreateTokenDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (token: string) => void }) {
  const createToken = useCreateAccessToken();
  const repositories = useAllRepositories();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<TokenScope[]>(DEFAULT_SCOPES);
  const [repositoryId, setRepositoryId] = useState('');
  const reset = () => {
    setName('');
    setScopes(DEFAULT_SCOPES);
    setRepositoryId('');
    createToken.reset();
  };
  const close = () => {
    reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!canCreateToken(name, scopes)) return;
    createToken.mutate(
      { name: name.trim(), scopes, repositoryId: repositoryId || undefined },
      {
        onSuccess: (created) => {
          reset();
          onCreated(created.token);
        },
      },
    );
  };
  const repositoryOptions = [{ value: '', label: 'All repositories' }, ...(repositories.data ?? []).map((repository) => ({ value: repository.id, label: repository.name }))];
  return (
    <Dialog open={open} onClose={close} title="Create Access Token" description="Access tokens authenticate scripts, CI jobs and package managers across your account.">
      <form className="pk-form" onSubmit={submit}>
        {createToken.isError && (
          <Alert>{errorMessage(createToken.error, 'Could not create the token')}</Alert>
        )}
        <Field label="Token Name" name="name" placeholder="e.g. ci-deployment" required value={name} onChange={(event) => setName(event.target.value)} />
        <ScopeCheckboxes scopes={scopes} onChange={setScopes} />
        <Select label="Repository (optional)" name="repositoryId" options={repositoryOptions} value={repositoryId} onChange={(event) => setRepositoryId(event.target.value)} />
        <div className="pk-dialog__footer">
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={scopes.length === 0 || createToken.isPending}>
            {createToken.isPending ? 'Creating...' : 'Create Token'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function TokenRow({ token, repositoryName }: { token: AccessToken; repositoryName: string | undefined }) {
  const deleteToken = useDeleteAccessToken();
  const remove = () => {
    if (window.confirm(tokenDeleteConfirmation(token.name))) deleteToken.mutate(token.id);
  };
  return (
    <li className="pk-spread">
      <div style={{ minWidth: 0, display: 'grid', gap: 6 }}>
        <div className="pk-row">
          <strong style={{ overflowWrap: 'anywhere' }}>{token.name}</strong>
          {token.scopes.map((scope) => (
            <Badge key={scope} tone={SCOPE_TONES[scope] ?? 'neutral'}>
              {scope}
            </Badge>
          ))}
        </div>
        <div className="pk-muted" style={{ fontSize: 13.5 }}>
          {token.repositoryId ? `Repository: ${repositoryName ?? token.repositoryId}` : 'All repositories'}
        </div>
        <div className="pk-row pk-muted" style={{ fontSize: 13, gap: 16 }}>
          <span>Created {formatDate(token.createdAt)}</span>
          <span>Last used {formatDate(token.lastUsed)}</span>
        </div>
      </div>
      <IconButton label="Delete" icon="trash" variant="danger" disabled={deleteToken.isPending} onClick={remove} />
    </li>
  );
}

export default function AccessTokensPage() {
  const tokens = useAccessTokens();
  const repositories = useAllRepositories();
  const [creating, setCreating] = useState(false);
  const [createdToken, setCreatedToken] = useState<string>();
  const repositoryNames = new Map((repositories.data ?? []).map((repository) => [repository.id, repository.name]));

  return (
    <div className="pk-page">
      <PageHeader
        title="Access Tokens"
        description="Account-wide tokens for the API and for apt, dnf and yum."
        actions={
          <Button variant="primary" icon="plus" onClick={() => setCreating(true)}>
            Create Access Token
          </Button>
        }
      />
      {tokens.isPending ? (
        <p className="pk-muted" role="status">
          Loading access tokens...
        </p>
      ) : tokens.isError ? (
        <ErrorPanel title="Could not load access tokens" message={tokens.error.message} onRetry={() => void tokens.refetch()} />
      ) : tokens.data.length === 0 ? (
        <EmptyState icon="key" title="No access tokens yet">
          Create a token to let scripts and servers reach your repositories.
        </EmptyState>
      ) : (
        <Card>
          <ul className="pk-list" aria-label="Access tokens">
            {tokens.data.map((token) => (
              <TokenRow key={token.id} token={token} repositoryName={token.repositoryId ? repositoryNames.get(token.repositoryId) : undefined} />
            ))}
          </ul>
        </Card>
      )}
      <CreateTokenDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(token) => {
          setCreating(false);
          setCreatedToken(token);
        }}
      />
      <SecretShownOnceDialog title="Token Created Successfully" secret={createdToken} onDone={() => setCreatedToken(undefined)} />
    </div>
  );
}
