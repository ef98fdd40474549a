import {
  Alert,
  Badge,
  Button,
  Card,
  Dialog,
  EmptyState,
  errorMessage,
  ErrorPanel,
  Field,
  formatBytes,
  formatDate,
  Icon,
  IconButton,
  PageHeader,
  type Repository,
  type RepositoryKind,
  Select,
  useCreateRepository,
  useDeletedRepositories,
  useDeleteRepository,
  useRepositories,
  useRestoreRepository,
  useWorkspace,
} from '@packyard/console-kit';
import { type FormEvent, useCallback, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { RecentlyDeleted, UndoToast } from './recently-deleted';
import { filterRepositoriesByName, NEW_REPOSITORY_DEFAULTS, repositoryDeleteConfirmation } from './repository-rules';

const KIND_OPTIONS = [
  { value: 'DEB', label: 'DEB — Debian / Ubuntu (APT)' },
  { value: 'RPM', label: 'RPM — RedHat / CentOS (YUM)' },
];

function NewRepositoryDialog({ workspaceId, open, onClose }: { workspaceId: string; open: boolean; onClose: () => void }) {
  const createRepository = useCreateRepository(workspaceId);
  const [form, setForm] = useState(NEW_REPOSITORY_DEFAULTS);
  const close = () => {
    setForm(NEW_REPOSITORY_DEFAULTS);
    createRepository.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!form.name.trim()) return;
    createRepository.mutate({ ...form, name: form.name.trim() }, { onSuccess: close });
  };
  return (
    <Dialog open={open} onClose={close} title="New Repository" description="Create an APT (DEB) or YUM (RPM) repository in this workspace.">
      <form className="pk-form" onSubmit={submit}>
        {createRepository.isError && (
          <Alert>{errorMessage(createRepository.error, 'Could not create the repository')}</Alert>
        )}
        <Field label="Repository Name" name="name" placeholder="my-packages" required value={form.name} onChange={(event) => setForm({ ...form, name: event.target.value })} />
        <Select
          label="Repository Type"
          name="kind"
          options={KIND_OPTIONS}
          value={form.kind}
          onChange={(event) => setForm({ ...form, kind: event.target.value as RepositoryKind })}
        />
        {form.kind === 'DEB' && (
          <div className="pk-form-row">
            <Field
              label="Codename"
              name="codename"
              value={form.codename}
              onChange={(event) => setForm({ ...form, codename: event.target.value })}
              hint="The install instructions use it when a distribution has this codename (bookworm, noble…); each upload chooses its own distribution."
            />
            <Field label="Component" name="component" value={form.component} onChange={(event) => setForm({ ...form, component: event.target.value })} />
          </div>
        )}
        <div className="pk-dialog__footer">
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={!form.name.trim() || createRepository.isPending}>
            {createRepository.isPending ? 'Creating...' : 'Create Repository'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function RepositoryCard({ workspaceId, repository, deleting, onDelete }: { workspaceId: string; repository: Repository; deleting: boolean; onDelete: (repository: Repository) => void }) {
  const remove = () => {
    if (window.confirm(repositoryDeleteConfirmation(repository.name))) onDelete(repository);
  };
  return (
    <Card as="article">
      <div className="pk-spread">
        <div className="pk-row" style={{ minWidth: 0 }}>
          <Link to={`/workspaces/${workspaceId}/repos/${repository.id}`} className="pk-card__title" style={{ overflowWrap: 'anywhere' }}>
            {repository.name}
          </Link>
          <Badge tone={repository.kind === 'DEB' ? 'purple' : 'amber'}>{repository.kind}</Badge>
        </div>
        <IconButton label="Delete" icon="trash" variant="danger" disabled={deleting} onClick={remove} />
      </div>
      <dl className="pk-meta">
        {repository.kind === 'DEB' && (
          <>
            <dt>Codename</dt>
            <dd>{repository.codename || 'Not set'}</dd>
          </>
        )}
        <dt>Packages</dt>
        <dd>{repository.packageCount}</dd>
        <dt>Size</dt>
        <dd>{formatBytes(repository.sizeBytes)}</dd>
        <dt>Updated</dt>
        <dd>{formatDate(repository.updatedAt)}</dd>
      </dl>
    </Card>
  );
}

export default function WorkspaceRepositoriesPage() {
  const { workspaceId } = useParams();
  const workspace = useWorkspace(workspaceId);
  const repositories = useRepositories(workspaceId);
  const [search, setSearch] = useState('');
  const [dialogOpen, setDialogOpen] = useState(false);
  const deletedRepositories = useDeletedRepositories(workspaceId);
  const deleteRepository = useDeleteRepository(workspaceId ?? '');
  const restoreRepository = useRestoreRepository(workspaceId ?? '');
  const [justDeleted, setJustDeleted] = useState<Repository>();
  // the page, not the card, deletes: the card is gone from the list before the toast is shown
  const remove = (repository: Repository) => deleteRepository.mutate(repository.id, { onSuccess: () => setJustDeleted(repository) });
  const dismissToast = useCallback(() => setJustDeleted(undefined), []);
  const restore = (repositoryId: string) => {
    setJustDeleted(undefined);
    restoreRepository.mutate(repositoryId);
  };

  if (!workspaceId) {
    return (
      <div className="pk-page">
        <EmptyState icon="alert" title="Invalid workspace" />
      </div>
    );
  }
  const shown = filterRepositoriesByName(repositories.data ?? [], search);

  return (
    <div className="pk-page">
      <PageHeader
        title={`${workspace.data?.name ?? 'Workspace'} Repositories`}
        description={workspace.data && <span className="pk-mono">/{workspace.data.slug}</span>}
        actions={
          <>
            <Link to={`/workspaces/${workspaceId}/audit`} className="pk-button pk-button--secondary pk-button--md">
              <Icon name="activity" size={17} /> Audit log
            </Link>
            <Link to={`/workspaces/${workspaceId}/webhooks`} className="pk-button pk-button--secondary pk-button--md">
              <Icon name="bell" size={17} /> Webhooks
            </Link>
            <Button variant="primary" icon="plus" onClick={() => setDialogOpen(true)}>
              New Repository
            </Button>
          </>
        }
      >
        <Link to="/workspaces" className="pk-back-link">
          <Icon name="arrowLeft" size={15} /> Back to Workspaces
        </Link>
      </PageHeader>
      <div className="pk-search">
        <Icon name="search" size={17} />
        <input className="pk-input" type="search" aria-label="Search repositories" placeholder="Search repositories..." value={search} onChange={(event) => setSearch(event.target.value)} />
      </div>
      {repositories.isPending ? (
        <div className="pk-screen-loading">
          <span className="pk-muted" role="status">
            Loading repositories...
          </span>
        </div>
      ) : repositories.isError ? (
        <ErrorPanel title="Could not load repositories" message={repositories.error.message} onRetry={() => void repositories.refetch()} />
      ) : shown.length === 0 ? (
        search.trim() && repositories.data.length > 0 ? (
          <EmptyState icon="search" title="No repositories found">
            No repository name contains “{search.trim()}”.
          </EmptyState>
        ) : (
          <EmptyState
            icon="package"
            title="No repositories yet"
            action={
              <Button variant="primary" icon="plus" onClick={() => setDialogOpen(true)}>
                Create your first repository
              </Button>
            }
          >
            Create a DEB or RPM repository and upload your first package.
          </EmptyState>
        )
      ) : (
        <div className="pk-grid">
          {shown.map((repository) => (
            <RepositoryCard
              key={repository.id}
              workspaceId={workspaceId}
              repository={repository}
              deleting={deleteRepository.isPending && deleteRepository.variables === repository.id}
              onDelete={remove}
            />
          ))}
        </div>
      )}
      <RecentlyDeleted
        what="repositories"
        items={(deletedRepositories.data ?? []).map((repository) => ({
          ...repository,
          details: `${repository.kind} · ${repository.packageCount} ${repository.packageCount === 1 ? 'package' : 'packages'} · ${formatBytes(repository.sizeBytes)}`,
        }))}
        restoring={restoreRepository.isPending ? restoreRepository.variables : undefined}
        error={restoreRepository.error}
        onRestore={restore}
      />
      {justDeleted && <UndoToast key={justDeleted.id} what="Repository" item={justDeleted} onUndo={restore} onDismiss={dismissToast} />}
      <NewRepositoryDialog workspaceId={workspaceId} open={dialogOpen} onClose={() => setDialogOpen(false)} />
    </div>
  );
}
