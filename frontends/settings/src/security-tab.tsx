import {
  accountPasswordProblem,
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
  Skeleton,
  useChangePassword,
  useRevokeOtherSessions,
  useRevokeSession,
  type UserSession,
  useUserSecurity,
  useUserSessions,
} from '@packyard/console-kit';
import { type FormEvent, useState } from 'react';
import { describeDevice } from './settings-options';
import { DisableTwoFactorDialog, EnableTwoFactorDialog } from './two-factor-dialogs';

function ChangePasswordDialog({ open, onClose, onChanged }: { open: boolean; onClose: () => void; onChanged: () => void }) {
  const change = useChangePassword();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [problem, setProblem] = useState<string>();
  const close = () => {
    setCurrentPassword('');
    setNewPassword('');
    setConfirmation('');
    setProblem(undefined);
    change.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = accountPasswordProblem(newPassword, confirmation);
    setProblem(found);
    if (found) return;
    change.mutate(
      { currentPassword, newPassword },
      {
        onSuccess: () => {
          close();
          onChanged();
        },
      },
    );
  };
  const shown = problem ?? (change.isError ? errorMessage(change.error, 'Could not change the password') : undefined);
  return (
    <Dialog open={open} onClose={close} title="Change Password" description="Every other signed-in session is signed out; this one stays signed in.">
      <form className="pk-form" onSubmit={submit}>
        {shown && (
          <Alert>{shown}</Alert>
        )}
        <Field label="Current password" type="password" name="currentPassword" autoComplete="current-password" value={currentPassword} onChange={(event) => setCurrentPassword(event.target.value)} />
        <Field label="New password" type="password" name="newPassword" autoComplete="new-password" required value={newPassword} onChange={(event) => setNewPassword(event.target.value)} />
        <Field label="Confirm new password" type="password" name="confirmPassword" autoComplete="new-password" required value={confirmation} onChange={(event) => setConfirmation(event.target.value)} />
        <div className="pk-dialog__footer">
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={change.isPending}>
            {change.isPending ? 'Changing...' : 'Change Password'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function SessionRow({ session }: { session: UserSession }) {
  const revoke = useRevokeSession();
  return (
    <li className="pk-spread" style={{ flexWrap: 'wrap' }}>
      <div style={{ display: 'grid', gap: 4, minWidth: 0, flex: '1 1 240px' }}>
        <div className="pk-row">
          <strong title={session.userAgent}>{describeDevice(session.userAgent)}</strong>
          {session.current && <Badge tone="green">This device</Badge>}
        </div>
        <div className="pk-row pk-muted" style={{ fontSize: 13, columnGap: 16, rowGap: 2 }}>
          {session.clientIp && <span>{session.clientIp}</span>}
          <span>Signed in {formatDate(session.createdAt)}</span>
          <span>Last active {formatDate(session.lastUsedAt)}</span>
        </div>
        {revoke.isError && (
          <Alert>{errorMessage(revoke.error, 'Could not sign this session out')}</Alert>
        )}
      </div>
      {!session.current && (
        <Button size="sm" disabled={revoke.isPending} onClick={() => revoke.mutate(session.id)}>
          {revoke.isPending ? 'Signing out...' : 'Sign out'}
        </Button>
      )}
    </li>
  );
}

function SessionsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const sessions = useUserSessions();
  const revokeOthers = useRevokeOtherSessions();
  const others = (sessions.data ?? []).filter((session) => !session.current).length;
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Signed-in Sessions"
      description="Browsers and devices signed in to your account. Signing one out ends it within 15 minutes at most."
      footer={
        <>
          <Button variant="danger" disabled={others === 0 || revokeOthers.isPending} onClick={() => revokeOthers.mutate()}>
            {revokeOthers.isPending ? 'Signing out...' : 'Sign out all other sessions'}
          </Button>
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        </>
      }
    >
      {revokeOthers.isError && (
        <Alert>{errorMessage(revokeOthers.error, 'Could not sign the other sessions out')}</Alert>
      )}
      {sessions.isPending ? (
        <Skeleton height={80} />
      ) : sessions.isError ? (
        <ErrorPanel title="Could not load your sessions" message={sessions.error.message} onRetry={() => void sessions.refetch()} />
      ) : sessions.data.length === 0 ? (
        <EmptyState icon="shield" title="No signed-in sessions" />
      ) : (
        <ul className="pk-list" aria-label="Sessions">
          {sessions.data.map((session) => (
            <SessionRow key={session.id} session={session} />
          ))}
        </ul>
      )}
    </Dialog>
  );
}

export function SecurityTab() {
  const security = useUserSecurity();
  const [changingPassword, setChangingPassword] = useState(false);
  const [passwordChanged, setPasswordChanged] = useState(false);
  const [viewingSessions, setViewingSessions] = useState(false);
  // chosen when the dialog opens: enabling flips the status while the recovery codes are still shown
  const [twoFactorDialog, setTwoFactorDialog] = useState<'enable' | 'disable'>();
  if (security.isPending) return <Skeleton height={160} />;
  if (security.isError) return <ErrorPanel title="Could not load security settings" message={security.error.message} onRetry={() => void security.refetch()} />;
  const enabled = security.data.twoFactorEnabled;
  return (
    <div className="pk-stack">
      <Card>
        <div className="pk-spread" style={{ flexWrap: 'wrap' }}>
          <div>
            <h2 className="pk-card__title">Two-factor authentication</h2>
            <p className="pk-card__subtitle" style={{ marginBottom: 0 }}>
              Status: <Badge tone={enabled ? 'green' : 'neutral'}>{enabled ? 'Enabled' : 'Disabled'}</Badge>
            </p>
          </div>
          <Button onClick={() => setTwoFactorDialog(enabled ? 'disable' : 'enable')}>{enabled ? 'Disable' : 'Enable'}</Button>
        </div>
      </Card>
      <Card>
        <div className="pk-spread" style={{ flexWrap: 'wrap' }}>
          <div>
            <h2 className="pk-card__title">Password</h2>
            <p className="pk-card__subtitle" style={{ marginBottom: 0 }}>
              Last changed: {security.data.lastPasswordChange ? formatDate(security.data.lastPasswordChange) : 'Never'}
            </p>
            {passwordChanged && (
              <p className="pk-muted" role="status" style={{ margin: '6px 0 0' }}>
                Password changed. Your other sessions were signed out.
              </p>
            )}
          </div>
          <div className="pk-row">
            <Button
              onClick={() => {
                setPasswordChanged(false);
                setChangingPassword(true);
              }}
            >
              Change Password
            </Button>
            <Button onClick={() => setViewingSessions(true)}>View Sessions</Button>
          </div>
        </div>
      </Card>
      <ChangePasswordDialog open={changingPassword} onClose={() => setChangingPassword(false)} onChanged={() => setPasswordChanged(true)} />
      {viewingSessions && <SessionsDialog open onClose={() => setViewingSessions(false)} />}
      {twoFactorDialog === 'enable' && <EnableTwoFactorDialog onClose={() => setTwoFactorDialog(undefined)} />}
      {twoFactorDialog === 'disable' && <DisableTwoFactorDialog onClose={() => setTwoFactorDialog(undefined)} />}
    </div>
  );
}
