import { Alert, Button, EmptyState, ErrorPanel, formatDate, Icon, PageHeader, Pager, Select, Spinner, useWorkspace } from '@packyard/console-kit';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { AUDIT_ACTIONS, AUDIT_PAGE_SIZE, useAuditExport, useAuditLog } from './audit-resources';

const SEARCH_DELAY_MS = 250;
const actionLabel = (action: string) => AUDIT_ACTIONS.find((choice) => choice.value === action)?.label ?? action;

/** Who did what in a workspace, when and from where; filtered by action and actor, paged, exportable as JSON lines. */
export default function AuditLogPage() {
  const workspaceId = useParams().workspaceId ?? '';
  const workspace = useWorkspace(workspaceId);
  const [action, setAction] = useState('');
  const [actorInput, setActorInput] = useState('');
  const [actor, setActor] = useState('');
  const [page, setPage] = useState(0);
  const [exportError, setExportError] = useState<string>();
  useEffect(() => {
    const timer = setTimeout(() => {
      setActor(actorInput.trim());
      setPage(0);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [actorInput]);
  const log = useAuditLog(workspaceId, { action, actor, page });
  const exportLines = useAuditExport(workspaceId);
  const pages = Math.max(1, Math.ceil((log.data?.total ?? 0) / AUDIT_PAGE_SIZE));

  const download = async () => {
    setExportError(undefined);
    try {
      const text = await exportLines({ action, actor });
      const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `audit-${workspace.data?.slug ?? workspaceId}.jsonl`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 30_000);
    } catch (failure) {
      setExportError(`Export failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    }
  };

  return (
    <div className="pk-page">
      <PageHeader
        title={`${workspace.data?.name ?? 'Workspace'} Audit log`}
        description="Who did what in this workspace, when and from which address."
        actions={
          <Button icon="download" onClick={() => void download()}>
            Export JSON lines
          </Button>
        }
      >
        <Link to={`/workspaces/${workspaceId}/repos`} className="pk-back-link">
          <Icon name="arrowLeft" size={15} /> Back to Repositories
        </Link>
      </PageHeader>
      <div className="pk-row pk-wrap">
        <Select
          label="Action"
          value={action}
          onChange={(event) => {
            setAction(event.target.value);
            setPage(0);
          }}
          options={[{ value: '', label: 'All actions' }, ...AUDIT_ACTIONS]}
        />
        <label className="pk-search">
          <Icon name="search" size={17} />
          <span className="pk-visually-hidden">Actor</span>
          <input className="pk-input" type="search" placeholder="Actor (email or token)..." value={actorInput} onChange={(event) => setActorInput(event.target.value)} />
        </label>
      </div>
      {exportError && (
        <Alert>{exportError}</Alert>
      )}
      {log.isPending ? (
        <Spinner label="Loading the audit log" />
      ) : log.isError ? (
        <ErrorPanel title="Could not load the audit log" message={log.error.message} onRetry={() => void log.refetch()} />
      ) : log.data.items.length === 0 ? (
        <EmptyState icon="activity" title="No entries">
          {action || actor ? 'Nothing matches these filters.' : 'Nothing has happened in this workspace yet.'}
        </EmptyState>
      ) : (
        <>
          <div className="pk-table-wrap">
            <table className="pk-table pk-table--cards" aria-label="Audit log">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Action</th>
                  <th scope="col">What</th>
                  <th scope="col">Who</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                {log.data.items.map((entry) => (
                  <tr key={entry.id}>
                    <td data-label="When">{formatDate(entry.at)}</td>
                    <td data-label="Action">
                      {actionLabel(entry.action)}
                      {entry.reason && entry.reason !== 'deleted' && <div className="pk-muted">{entry.reason}</div>}
                    </td>
                    <td data-label="What" className="pk-table__wide" style={{ overflowWrap: 'anywhere' }}>
                      {entry.target}
                    </td>
                    <td data-label="Who" className="pk-table__wide" style={{ overflowWrap: 'anywhere' }}>
                      {entry.actor}
                    </td>
                    <td data-label="Address" className="pk-mono">
                      {entry.address || '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} summary={`${log.data.total} ${log.data.total === 1 ? 'entry' : 'entries'}`} onChange={setPage} />
        </>
      )}
    </div>
  );
}
