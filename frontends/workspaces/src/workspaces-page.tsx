import {
  Alert,
  Button,
  Card,
  deriveSlug,
  EmptyState,
  errorMessage,
  ErrorPanel,
  Field,
  formatBytes,
  formatDate,
  PageHeader,
  SLUG_HINT,
  SLUG_PATTERN,
  useCreateWorkspace,
  useDeletedWorkspaces,
  useDeleteWorkspace,
  useRestoreWorkspace,
  useWorkspaces,
  type Workspace,
} from '@packyard/console-kit';
import { type FormEvent, useCallback, useState } from 'react';
import { Link } from 'react-router-dom';
import { RecentlyDeleted, UndoToast } from './recently-deleted';

function NewWorkspaceForm({ onDone }: { onDone: () => void }) {
  const createWorkspace = useCreateWorkspace();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [description, setDescription] = useState('');
  const [slugError, setSlugError] = useState<string>();

  const changeName = (value: string) => {
    setName(value);
    if (!slugEdited) setSlug(deriveSlug(value));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return;
    const finalSlug = slug || deriveSlug(name);
    if (!SLUG_PATTERN.test(finalSlug)) return setSlugError(SLUG_HINT);
    setSlugError(undefined);
    createWorkspace.mutate(
      { name: name.trim(), slug: finalSlug, description: description.trim() || undefined },
      { onSuccess: onDone },
    );
  };

  return (
    <Card>
      <h2 className="pk-card__title">New Workspace</h2>
      <p className="pk-card__subtitle">A workspace groups repositories, for example per team or product.</p>
      <form className="pk-form" onSubmit={submit} noValidate>
        {createWorkspace.isError && (
          <Alert>{errorMessage(createWorkspace.error, 'Could not create the workspace')}</Alert>
        )}
        <div className="pk-form-row">
          <Field label="Name" name="name" placeholder="My Team" value={name} onChange={(event) => changeName(event.target.value)} autoFocus />
          <Field
            label="Slug"
            name="slug"
            placeholder="my-team"
            value={slug}
            hint={SLUG_HINT}
            error={slugError}
            onChange={(event) => {
              setSlugEdited(true);
              setSlug(event.target.value);
            }}
          />
        </div>
        <Field label="Description (optional)" name="description" placeholder="What lives in this workspace?" value={description} onChange={(event) => setDescription(event.target.value)} />
        <div className="pk-row" style={{ justifyContent: 'flex-end' }}>
          <Button onClick={onDone}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={createWorkspace.isPending}>
            {createWorkspace.isPending ? 'Creating...' : 'Create Workspace'}
          </Button>
        </div>
      </form>
    </Card>
  );
}

function WorkspaceCard({ workspace, deleting, onDelete }: { workspace: Workspace; deleting: boolean; onDelete: (workspace: Workspace) => void }) {
  return (
    <Card as="article">
      <div className="pk-spread">
        <div style={{ minWidth: 0 }}>
          <h2 className="pk-card__title" style={{ overflowWrap: 'anywhere' }}>
            {workspace.name}
          </h2>
          <div className="pk-muted pk-mono">/{workspace.slug}</div>
        </div>
        {/* Spec §5: deleting a workspace asks for no confirmation; it can be restored instead (Undo, Recently deleted). */}
        <Button
          variant="danger"
          size="sm"
          icon="trash"
          disabled={deleting}
          onClick={() => onDelete(workspace)}
        >
          Delete
        </Button>
      </div>
      {workspace.description && <p style={{ margin: '12px 0 0' }}>{workspace.description}</p>}
      <dl className="pk-meta">
        <dt>Repositories</dt>
        <dd>{workspace.repositoryCount}</dd>
        <dt>Storage</dt>
        <dd>{formatBytes(workspace.storageBytesUsed)}</dd>
        <dt>Bandwidth this month</dt>
        <dd>{formatBytes(workspace.bandwidthBytesMonth)}</dd>
        <dt>Created</dt>
        <dd>{formatDate(workspace.createdAt)}</dd>
      </dl>
      <div style={{ marginTop: 16 }}>
        <Link className="pk-button pk-button--secondary pk-button--sm" to={`/workspaces/${workspace.id}/repos`}>
          View Repositories
        </Link>
      </div>
    </Card>
  );
}

export default function WorkspacesPage() {
  const workspaces = useWorkspaces();
  const deletedWorkspaces = useDeletedWorkspaces();
  const deleteWorkspace = useDeleteWorkspace();
  const restoreWorkspace = useRestoreWorkspace();
  const [justDeleted, setJustDeleted] = useState<Workspace>();
  // the page, not the card, deletes: the card is gone from the list before the toast is shown
  const remove = (workspace: Workspace) => deleteWorkspace.mutate(workspace.id, { onSuccess: () => setJustDeleted(workspace) });
  const dismissToast = useCallback(() => setJustDeleted(undefined), []);
  const restore = (workspaceId: string) => {
    setJustDeleted(undefined);
    restoreWorkspace.mutate(workspaceId);
  };
  const [formOpen, setFormOpen] = useState(false);
  // A new key per opening: the form starts empty again after a create.
  const [formKey, setFormKey] = useState(0);
  const openForm = () => {
    setFormKey((key) => key + 1);
    setFormOpen(true);
  };

  return (
    <div className="pk-page">
      <PageHeader
        title="Workspaces"
        description="Organise your repositories into workspaces."
        actions={
          !formOpen && (
            <Button variant="primary" icon="plus" onClick={openForm}>
              New Workspace
            </Button>
          )
        }
      />
      {formOpen && <NewWorkspaceForm key={formKey} onDone={() => setFormOpen(false)} />}
      {workspaces.isPending ? (
        <p className="pk-muted" role="status">
          Loading workspaces...
        </p>
      ) : workspaces.isError ? (
        <ErrorPanel title="Could not load workspaces" message={workspaces.error.message} onRetry={() => void workspaces.refetch()} />
      ) : workspaces.data.length === 0 ? (
        <EmptyState
          title="No workspaces yet"
          action={
            !formOpen && (
              <Button variant="primary" icon="plus" onClick={openForm}>
                Create your first workspace
              </Button>
            )
          }
        >
          Create a workspace to start hosting DEB and RPM repositories.
        </EmptyState>
      ) : (
        <div className="pk-grid">
          {workspaces.data.map((workspace) => (
            <WorkspaceCard key={workspace.id} workspace={workspace} deleting={deleteWorkspace.isPending && deleteWorkspace.variables === workspace.id} onDelete={remove} />
          ))}
        </div>
      )}
      <RecentlyDeleted
        what="workspaces"
        items={(deletedWorkspaces.data ?? []).map((workspace) => ({
          ...workspace,
          details: (
            <>
              <span className="pk-mono">/{workspace.slug}</span> · {workspace.repositoryCount} {workspace.repositoryCount === 1 ? 'repository' : 'repositories'}
            </>
          ),
        }))}
        restoring={restoreWorkspace.isPending ? restoreWorkspace.variables : undefined}
        error={restoreWorkspace.error}
        onRestore={restore}
      />
      {justDeleted && <UndoToast key={justDeleted.id} what="Workspace" item={justDeleted} onUndo={restore} onDismiss={dismissToast} />}
    </div>
  );
}
