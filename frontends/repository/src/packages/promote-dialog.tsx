import { Alert, Button, Checkbox, Dialog, type Repository, Select, useRepositories } from '@packyard/console-kit';
import { useEffect, useState } from 'react';
import { type RepositoryPackage, useMovePackage } from '../repository-resources';

interface PromoteDialogProps {
  workspaceId: string;
  repository: Repository;
  /** the package to promote; the dialog is closed while there is none */
  pkg: RepositoryPackage | undefined;
  onClose: () => void;
  /** after the move, with a sentence saying what happened */
  onDone: (message: string) => void;
}

/**
 * Promotes a package to another repository of the workspace (same kind) without a re-upload,
 * or copies it there when "Keep" is ticked. The answer comes once the target publishes it.
 */
export function PromoteDialog({ workspaceId, repository, pkg, onClose, onDone }: PromoteDialogProps) {
  const repositories = useRepositories(workspaceId);
  const move = useMovePackage(workspaceId, repository.id);
  const targets = (repositories.data ?? []).filter((candidate) => candidate.id !== repository.id && candidate.kind === repository.kind);
  const [targetId, setTargetId] = useState('');
  const [keep, setKeep] = useState(false);
  const open = Boolean(pkg);
  useEffect(() => {
    if (!open) return;
    setKeep(false);
    move.reset(); // a fresh form each time the dialog opens
  }, [open, pkg?.id]);
  useEffect(() => {
    if (!targets.some((target) => target.id === targetId)) setTargetId(targets[0]?.id ?? '');
  }, [targets, targetId]);

  const target = targets.find((candidate) => candidate.id === targetId);
  const submit = () => {
    if (!pkg || !target) return;
    move.mutate(
      { packageId: pkg.id, targetRepositoryId: target.id, move: keep ? 'copy' : 'promote' },
      { onSuccess: () => onDone(`${keep ? 'Copied' : 'Promoted'} ${pkg.name} ${pkg.version} to ${target.name}.`) },
    );
  };

  return (
    <Dialog
      open={open}
      title={pkg ? `Promote ${pkg.name} ${pkg.version}` : 'Promote'}
      onClose={onClose}
      description="The package moves to the other repository without a new upload: the same file, published in its indices."
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" disabled={!target || move.isPending} onClick={submit}>
            {move.isPending ? 'Publishing…' : keep ? 'Copy' : 'Promote'}
          </Button>
        </>
      }
    >
      <div className="pk-stack">
        {repositories.isSuccess && targets.length === 0 ? (
          <p className="pk-muted">There is no other {repository.kind} repository in this workspace. Create one to promote packages to it.</p>
        ) : (
          <Select
            label="Target repository"
            value={targetId}
            onChange={(event) => setTargetId(event.target.value)}
            options={targets.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
          />
        )}
        <Checkbox label={`Keep it in ${repository.name}`} description="Copy instead of move." checked={keep} onChange={(event) => setKeep(event.target.checked)} />
        {move.isError && (
          <Alert>{move.error.message}</Alert>
        )}
      </div>
    </Dialog>
  );
}
