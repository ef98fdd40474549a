import { Alert, Button, Card, ErrorPanel, Field, formatBytes, type Repository, Spinner } from '@packyard/console-kit';
import { type FormEvent, useEffect, useState } from 'react';
import { MAX_KEEP_DOWNLOADED_DAYS, MAX_KEEP_VERSIONS, wholeNumberInRange } from '../repository-rules';
import { type RepositoryPackage, useApplyRetention, useRetentionPolicy, useSaveRetentionPolicy } from '../repository-resources';

/** The outcome of a dry run or a run, listed so the user sees exactly which versions. */
function RetentionOutcome({ dryRun, packages }: { dryRun: boolean; packages: RepositoryPackage[] }) {
  if (packages.length === 0) return <p role="status">{dryRun ? 'Nothing would be deleted: every version is kept.' : 'Nothing was deleted.'}</p>;
  return (
    <div className="pk-stack" role="status">
      <p>
        {dryRun ? 'These versions would be deleted:' : 'Deleted:'} {packages.length} {packages.length === 1 ? 'package' : 'packages'},{' '}
        {formatBytes(packages.reduce((sum, pkg) => sum + pkg.sizeBytes, 0))}
      </p>
      <ul className="pk-retention-list" aria-label={dryRun ? 'Would be deleted' : 'Deleted'}>
        {packages.map((pkg) => (
          <li key={pkg.id} className="pk-mono">
            {pkg.name} {pkg.version} ({pkg.architecture}, {pkg.distribution})
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Retention: keep the newest N versions per name, distribution and architecture; spare recent downloads. */
function RetentionSettings({ workspaceId, repository }: { workspaceId: string; repository: Repository }) {
  const policy = useRetentionPolicy(workspaceId, repository.id);
  const save = useSaveRetentionPolicy(workspaceId, repository.id);
  const apply = useApplyRetention(workspaceId, repository.id);
  const [keepVersions, setKeepVersions] = useState('');
  const [keepDays, setKeepDays] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!policy.data) return;
    setKeepVersions(String(policy.data.keepVersions));
    setKeepDays(String(policy.data.keepDownloadedDays));
  }, [policy.data]);

  const versions = wholeNumberInRange(keepVersions, MAX_KEEP_VERSIONS, 'Versions to keep');
  const days = wholeNumberInRange(keepDays, MAX_KEEP_DOWNLOADED_DAYS, 'Days');
  const valid = typeof versions === 'number' && typeof days === 'number';
  const changed = policy.data !== undefined && valid && (versions !== policy.data.keepVersions || days !== policy.data.keepDownloadedDays);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    setSaved(false);
    apply.reset();
    save.mutate({ keepVersions: versions, keepDownloadedDays: days }, { onSuccess: () => setSaved(true) });
  };
  const run = (dryRun: boolean) => {
    if (!dryRun && !window.confirm(`Delete the versions the retention policy lets go from ${repository.name}? This action cannot be undone.`)) return;
    apply.mutate(dryRun);
  };

  if (policy.isPending) return <Spinner label="Loading retention policy" />;
  if (policy.isError) return <ErrorPanel title="Could not load the retention policy" message={policy.error.message} onRetry={() => void policy.refetch()} />;
  const active = policy.data.keepVersions > 0;
  return (
    <Card>
      <form className="pk-stack" onSubmit={submit} aria-label="Retention">
        <div>
          <h2 className="pk-card__title">Retention</h2>
          <p className="pk-muted">
            Keep only the newest versions of each package (per distribution and architecture). It runs after every upload, copy and promotion into this repository.
          </p>
        </div>
        <Field
          label="Versions to keep"
          inputMode="numeric"
          value={keepVersions}
          onChange={(event) => setKeepVersions(event.target.value)}
          hint="0 keeps every version."
          error={typeof versions === 'string' ? versions : undefined}
        />
        <Field
          label="Never delete a version downloaded in the last (days)"
          inputMode="numeric"
          value={keepDays}
          onChange={(event) => setKeepDays(event.target.value)}
          hint="0 lets downloads protect nothing."
          error={typeof days === 'string' ? days : undefined}
        />
        {save.isError && (
          <Alert>{save.error.message}</Alert>
        )}
        {saved && !changed && <p role="status">Retention policy saved.</p>}
        <div className="pk-row pk-wrap">
          <Button type="submit" variant="primary" disabled={!changed || save.isPending}>
            {save.isPending ? 'Saving…' : 'Save'}
          </Button>
          <Button disabled={!active || changed || apply.isPending} onClick={() => run(true)}>
            Preview deletions
          </Button>
          <Button variant="danger" disabled={!active || changed || apply.isPending} onClick={() => run(false)}>
            Apply now
          </Button>
        </div>
        {apply.isError && (
          <Alert>{apply.error.message}</Alert>
        )}
        {apply.data && <RetentionOutcome dryRun={apply.data.dryRun} packages={apply.data.packages} />}
      </form>
    </Card>
  );
}

export function SettingsTab({ workspaceId, repository }: { workspaceId: string; repository: Repository }) {
  return (
    <div className="pk-stack">
      <RetentionSettings workspaceId={workspaceId} repository={repository} />
    </div>
  );
}
