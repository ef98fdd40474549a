import { Alert, Button, Card, errorMessage, formatDate, formatTimeLeft, Toast } from '@packyard/console-kit';
import type { ReactNode } from 'react';

export interface DeletedItem {
  id: string;
  name: string;
  details: ReactNode;
  deletedAt: string;
  purgeAt: string;
}

/**
 * What was deleted and can still be restored, with the time left before it is purged for
 * good. Nothing is shown while nothing is waiting.
 */
export function RecentlyDeleted({
  what,
  items,
  restoring,
  error,
  onRestore,
}: {
  /** "workspaces" or "repositories", for the list's label */
  what: string;
  items: DeletedItem[];
  restoring: string | undefined;
  error: unknown;
  onRestore: (id: string) => void;
}) {
  if (items.length === 0) return null;
  return (
    <Card>
      <h2 className="pk-card__title">Recently deleted</h2>
      <p className="pk-card__subtitle">Deleted {what} can be restored with everything they held until they are purged for good.</p>
      {Boolean(error) && (
        <Alert>{errorMessage(error, 'Could not restore it')}</Alert>
      )}
      <ul className="pk-list" aria-label={`Recently deleted ${what}`}>
        {items.map((item) => (
          <li key={item.id} className="pk-spread" style={{ flexWrap: 'wrap' }}>
            <div style={{ minWidth: 0, display: 'grid', gap: 4 }}>
              <strong style={{ overflowWrap: 'anywhere' }}>{item.name}</strong>
              <div className="pk-muted" style={{ fontSize: 13.5 }}>
                {item.details}
              </div>
              <div className="pk-row pk-wrap pk-muted" style={{ fontSize: 13, gap: 16 }}>
                <span>Deleted {formatDate(item.deletedAt)}</span>
                <span title={`Purged ${formatDate(item.purgeAt)}`}>{formatTimeLeft(item.purgeAt)}</span>
              </div>
            </div>
            <Button size="sm" icon="refresh" disabled={restoring !== undefined} onClick={() => onRestore(item.id)} aria-label={`Restore ${item.name}`}>
              {restoring === item.id ? 'Restoring...' : 'Restore'}
            </Button>
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** The notice right after a deletion, with its way back. */
export function UndoToast({ what, item, onUndo, onDismiss }: { what: string; item: { id: string; name: string }; onUndo: (id: string) => void; onDismiss: () => void }) {
  return (
    <Toast
      message={`${what} “${item.name}” deleted.`}
      onDismiss={onDismiss}
      action={
        <Button size="sm" onClick={() => onUndo(item.id)}>
          Undo
        </Button>
      }
    />
  );
}
