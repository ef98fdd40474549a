import { Alert, Badge, Button, Card, CodeBlock, CopyButton, EmptyState, Field, formatDate, IconButton, type Repository, Select, Spinner } from '@packyard/console-kit';
import { type FormEvent, type ReactNode, useState } from 'react';
import type { KnownTokens } from '../repository-page';
import {
  canCreateRepoToken,
  distributionChoices,
  exampleInstallCommand,
  HIDDEN_TOKEN,
  installComponents,
  installScriptPath,
  maskToken,
  NO_TOKENS,
  TOKEN_NAME_PLACEHOLDER,
  withToken,
} from '../repository-rules';
import { type RepoToken, useCreateRepoToken, useDeleteRepoToken, usePackages, useRepoTokens, useRevealRepoToken, useSnippets } from '../repository-resources';

interface InstallTabProps {
  workspaceId: string;
  repository: Repository;
  knownTokens: KnownTokens;
  rememberToken: (tokenId: string, value: string) => void;
}

export function repoTokenDeleteConfirmation(name: string): string {
  return `Are you sure you want to delete token "${name}"? This action cannot be undone.`;
}

function CreateTokenForm({ repositoryId, onCreated, onCancel }: { repositoryId: string; onCreated: (token: RepoToken & { token: string }) => void; onCancel: () => void }) {
  const createToken = useCreateRepoToken(repositoryId);
  const [name, setName] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!canCreateRepoToken(name)) return;
    createToken.mutate(name.trim(), {
      onSuccess: (created) => {
        setName('');
        onCreated(created);
      },
    });
  };
  return (
    <form className="pk-form pk-token-form" onSubmit={submit} aria-label="Create repository token">
      <Field label="Token Name" name="name" placeholder={TOKEN_NAME_PLACEHOLDER} value={name} onChange={(event) => setName(event.target.value)} autoFocus />
      <div className="pk-row">
        <Button type="submit" variant="primary" disabled={!canCreateRepoToken(name) || createToken.isPending}>
          {createToken.isPending ? 'Creating...' : 'Create'}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

function TokenRow({ repositoryId, token, value, rememberToken }: { repositoryId: string; token: RepoToken; value: string | undefined; rememberToken: InstallTabProps['rememberToken'] }) {
  const [shown, setShown] = useState(false);
  const reveal = useRevealRepoToken(repositoryId);
  const deleteToken = useDeleteRepoToken(repositoryId);
  const revealValue = () => reveal.mutate(token.id, { onSuccess: ({ token: revealed }) => rememberToken(token.id, revealed) });
  const remove = () => {
    if (window.confirm(repoTokenDeleteConfirmation(token.name))) deleteToken.mutate(token.id);
  };
  return (
    <li className="pk-spread pk-token-row" aria-label={`Token ${token.name}`}>
      <div className="pk-token-row__body">
        <div className="pk-row pk-row--tight">
          <strong>{token.name}</strong>
          <Badge tone={token.isActive ? 'green' : 'neutral'}>{token.isActive ? 'Active' : 'Inactive'}</Badge>
        </div>
        <div className="pk-row pk-row--tight">
          {value ? (
            <>
              <code className="pk-token-value" data-testid="token-value">
                {shown ? value : maskToken(value)}
              </code>
              <IconButton label={shown ? 'Hide token' : 'Show token'} icon={shown ? 'eyeOff' : 'eye'} onClick={() => setShown(!shown)} />
              <CopyButton text={value} label="Copy token" />
            </>
          ) : (
            <>
              <span className="pk-muted pk-token-value">{HIDDEN_TOKEN}</span>
              <Button size="sm" icon="eye" disabled={reveal.isPending} onClick={revealValue}>
                Reveal
              </Button>
            </>
          )}
        </div>
        <div className="pk-row pk-muted pk-small pk-token-row__facts">
          <span>Created {formatDate(token.createdAt)}</span>
          <span>Last used {formatDate(token.lastUsedAt)}</span>
          <span>
            Used {token.usageCount} {token.usageCount === 1 ? 'time' : 'times'}
          </span>
        </div>
      </div>
      <IconButton label={`Delete token ${token.name}`} icon="trash" variant="danger" disabled={deleteToken.isPending} onClick={remove} />
    </li>
  );
}

function Step({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="pk-install-step" aria-label={title}>
      <h4 className="pk-install-step__title">{title}</h4>
      {children}
    </section>
  );
}

function InstallationInstructions({ workspaceId, repository, tokens, knownTokens, rememberToken }: InstallTabProps & { tokens: RepoToken[] }) {
  const active = tokens.filter((token) => token.isActive);
  const [tokenId, setTokenId] = useState('');
  // the server's default choice (where the packages are) until one is picked
  const defaults = useSnippets(repository.id);
  const distributions = distributionChoices(defaults.data?.distributions);
  const [picked, setPicked] = useState<string>();
  const distribution = distributions.find((option) => option.value === (picked ?? `${defaults.data?.distro}/${defaults.data?.codename}`)) ?? distributions[0];
  const components = installComponents(repository);
  const [component, setComponent] = useState(components[0]);
  const isDeb = repository.kind === 'DEB';
  const selected = active.find((token) => token.id === tokenId);
  const value = selected ? (knownTokens[selected.id] ?? selected.token) : undefined;
  const choice = isDeb ? { distro: distribution.distro, codename: distribution.codename, component } : {};
  const snippets = useSnippets(repository.id, choice, Boolean(selected) && (!isDeb || Boolean(defaults.data)));
  const scriptPath = snippets.data && installScriptPath(snippets.data.setupCommands.downloadScript);
  const firstPackage = usePackages(workspaceId, repository.id, { q: '', page: 0 }).data?.items[0]?.name;
  const reveal = useRevealRepoToken(repository.id);
  const commands = snippets.data?.setupCommands;

  return (
    <Card>
      <h2 className="pk-section-title">Installation Instructions</h2>
      <div className="pk-install-choices">
        <Select
          label="Select Token"
          name="token"
          value={tokenId}
          onChange={(event) => setTokenId(event.target.value)}
          options={[{ value: '', label: '-- Select a token --' }, ...active.map((token) => ({ value: token.id, label: token.name }))]}
        />
        {isDeb && (
          <>
            <Select
              label="Codename"
              name="codename"
              value={distribution.value}
              onChange={(event) => setPicked(event.target.value)}
              options={distributions}
              hint={defaults.data?.distributions.length ? 'Distributions that hold packages' : 'No packages yet: every distribution is published empty'}
            />
            <Select label="Component" name="component" value={component} onChange={(event) => setComponent(event.target.value)} options={components.map((option) => ({ value: option, label: option }))} />
          </>
        )}
      </div>
      {!selected ? (
        <p className="pk-muted">Select a token to see the installation commands.</p>
      ) : !value ? (
        <div className="pk-notice" role="note">
          <p>The value of “{selected.name}” is hidden. Reveal it to see the installation commands with it.</p>
          <Button size="sm" icon="eye" disabled={reveal.isPending} onClick={() => reveal.mutate(selected.id, { onSuccess: ({ token }) => rememberToken(selected.id, token) })}>
            Reveal token
          </Button>
        </div>
      ) : snippets.isPending ? (
        <Spinner label="Loading installation commands" />
      ) : snippets.isError ? (
        <Alert>{snippets.error.message}</Alert>
      ) : (
        commands && (
          <div className="pk-stack">
            <Step title="Automated Installation">
              <p className="pk-muted">Detects the distribution, installs the signing key and adds the repository in one go.</p>
              <CodeBlock wrap code={withToken(commands.oneLiner, value)} copyLabel="Copy install command" />
              <div className="pk-row">
                <CopyButton text={withToken(commands.oneLiner, value)} label="Copy" withText />
                <Button icon="download" disabled={!scriptPath} onClick={() => scriptPath && window.open(scriptPath, '_blank', 'noopener,noreferrer')}>
                  Download
                </Button>
              </div>
            </Step>
            <div className="pk-stack">
              <h3 className="pk-section-title">Manual Installation</h3>
              <Step title="1. Download the install script">
                <CodeBlock wrap code={commands.downloadScript} copyLabel="Copy download command" />
              </Step>
              <Step title="2. Make it executable">
                <CodeBlock wrap code={commands.makeExecutable} copyLabel="Copy chmod command" />
              </Step>
              <Step title="3. Run the installer with your token">
                <CodeBlock wrap code={withToken(commands.runInstaller, value)} copyLabel="Copy run command" />
              </Step>
            </div>
            <Step title="Update and install a package">
              <CodeBlock wrap code={exampleInstallCommand(repository.kind, firstPackage)} copyLabel="Copy example command" />
            </Step>
          </div>
        )
      )}
    </Card>
  );
}

export function InstallTab(props: InstallTabProps) {
  const { repository, knownTokens, rememberToken } = props;
  const tokens = useRepoTokens(repository.id);
  const [creating, setCreating] = useState(false);
  return (
    <div className="pk-stack">
      <Card>
        <div className="pk-spread pk-wrap">
          <div>
            <h2 className="pk-section-title">Repository Tokens</h2>
            <p className="pk-muted">Tokens let apt, dnf and yum read this repository (HTTP Basic, the token as user name).</p>
          </div>
          <Button variant={creating ? 'secondary' : 'primary'} icon={creating ? 'close' : 'plus'} aria-expanded={creating} onClick={() => setCreating(!creating)}>
            Create Token
          </Button>
        </div>
        {creating && (
          <CreateTokenForm
            repositoryId={repository.id}
            onCancel={() => setCreating(false)}
            onCreated={(created) => {
              rememberToken(created.id, created.token);
              setCreating(false);
            }}
          />
        )}
        {tokens.isPending ? (
          <Spinner label="Loading tokens" />
        ) : tokens.isError ? (
          <Alert>{tokens.error.message}</Alert>
        ) : tokens.data.length === 0 ? (
          <EmptyState icon="key" title={NO_TOKENS} />
        ) : (
          <ul className="pk-list" aria-label="Repository tokens">
            {tokens.data.map((token) => (
              <TokenRow key={token.id} repositoryId={repository.id} token={token} value={knownTokens[token.id] ?? token.token} rememberToken={rememberToken} />
            ))}
          </ul>
        )}
      </Card>
      {tokens.data && tokens.data.length > 0 && <InstallationInstructions {...props} tokens={tokens.data} />}
    </div>
  );
}
