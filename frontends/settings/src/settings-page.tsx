import {
  Alert,
  applyTheme,
  Badge,
  Button,
  Card,
  Checkbox,
  CopyButton,
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
  Skeleton,
  TabPanel,
  Tabs,
  type Theme,
  type TokenScope,
  useCreateUserToken,
  useDeleteAccount,
  useDeleteUserToken,
  useExportData,
  useProfile,
  type UserProfile,
  useUpdateProfile,
  useUserTokens,
} from '@packyard/console-kit';
import { type FormEvent, type ReactNode, useState } from 'react';
import { SecurityTab } from './security-tab';
import { THEMES, TIMEZONES, withProfileDefaults } from './settings-options';

const TABS = [
  { id: 'profile', label: 'Profile', icon: 'user' as const },
  { id: 'security', label: 'Security', icon: 'shield' as const },
  { id: 'notifications', label: 'Notifications', icon: 'bell' as const },
  { id: 'api-keys', label: 'API Keys', icon: 'key' as const },
  { id: 'danger', label: 'Danger Zone', icon: 'alert' as const },
];

function SavedNote({ show }: { show: boolean }) {
  return show ? (
    <span className="pk-muted" role="status">
      Saved
    </span>
  ) : null;
}

/** Profile and notifications edit the same profile document; this loads it once for both. */
function WithProfile({ children }: { children: (profile: UserProfile) => ReactNode }) {
  const profile = useProfile();
  if (profile.isPending) return <Skeleton height={180} />;
  if (profile.isError) return <ErrorPanel title="Could not load your profile" message={profile.error.message} onRetry={() => void profile.refetch()} />;
  return <>{children(withProfileDefaults(profile.data))}</>;
}

function ProfileTab({ profile }: { profile: UserProfile }) {
  const update = useUpdateProfile();
  const saveTheme = useUpdateProfile();
  const [form, setForm] = useState(profile);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { email: _readOnly, ...settings } = form;
    update.mutate(settings);
  };
  // the theme is seen at once and kept in the profile at once, so every device signed in follows it
  const chooseTheme = (theme: Theme) => {
    setForm({ ...form, theme });
    applyTheme(theme);
    saveTheme.mutate({ theme });
  };
  const failure = update.error ?? saveTheme.error;
  return (
    <Card>
      <h2 className="pk-card__title">Profile</h2>
      <p className="pk-card__subtitle">How you appear and how the console looks for you.</p>
      <form className="pk-form" onSubmit={submit}>
        {failure && (
          <Alert>{errorMessage(failure, 'Could not save your profile')}</Alert>
        )}
        <Field label="Email" type="email" value={form.email} readOnly hint="Email cannot be changed. Contact support if needed." />
        <Field label="Display Name" name="name" value={form.name} onChange={(event) => setForm({ ...form, name: event.target.value })} />
        <div className="pk-form-row">
          <Select label="Timezone" name="timezone" options={TIMEZONES.map((zone) => ({ value: zone, label: zone }))} value={form.timezone} onChange={(event) => setForm({ ...form, timezone: event.target.value })} />
          <Select
            label="Theme"
            name="theme"
            options={THEMES.map((theme) => ({ value: theme, label: theme }))}
            value={form.theme}
            hint="Applied and saved as soon as you choose it."
            onChange={(event) => chooseTheme(event.target.value as Theme)}
          />
        </div>
        <div className="pk-row">
          <Button type="submit" variant="primary" disabled={update.isPending}>
            {update.isPending ? 'Saving...' : 'Save Changes'}
          </Button>
          <SavedNote show={update.isSuccess} />
        </div>
      </form>
    </Card>
  );
}

function NotificationsTab({ profile }: { profile: UserProfile }) {
  const update = useUpdateProfile();
  const [form, setForm] = useState(profile);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { email: _readOnly, ...settings } = form;
    update.mutate(settings);
  };
  return (
    <Card>
      <h2 className="pk-card__title">Notifications</h2>
      <p className="pk-card__subtitle">Choose what we tell you about.</p>
      <form className="pk-form" onSubmit={submit}>
        {update.isError && (
          <Alert>{errorMessage(update.error, 'Could not save your preferences')}</Alert>
        )}
        <Checkbox label="Email notifications" description="Uploads, failed index builds and account changes." checked={form.emailNotifications} onChange={(event) => setForm({ ...form, emailNotifications: event.target.checked })} />
        <Checkbox label="Push notifications" description="Alerts in your browser." checked={form.pushNotifications} onChange={(event) => setForm({ ...form, pushNotifications: event.target.checked })} />
        <Checkbox label="Weekly digest" description="A summary of downloads and storage every Monday." checked={form.weeklyDigest} onChange={(event) => setForm({ ...form, weeklyDigest: event.target.checked })} />
        <div className="pk-row">
          <Button type="submit" variant="primary" disabled={update.isPending}>
            {update.isPending ? 'Saving...' : 'Save Preferences'}
          </Button>
          <SavedNote show={update.isSuccess} />
        </div>
      </form>
    </Card>
  );
}

function CreateKeyDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (token: string) => void }) {
  const create = useCreateUserToken();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<TokenScope[]>(['read']);
  const close = () => {
    setName('');
    setScopes(['read']);
    create.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '' || scopes.length === 0) return;
    create.mutate(
      { name: name.trim(), scopes },
      {
        onSuccess: (created) => {
          close();
          onCreated(created.token);
        },
      },
    );
  };
  return (
    <Dialog open={open} onClose={close} title="Create API Key" description="An API key acts as you on the API (Authorization: Bearer) and, with read, for apt and dnf, within its scopes.">
      <form className="pk-form" onSubmit={submit}>
        {create.isError && (
          <Alert>{errorMessage(create.error, 'Could not create the API key')}</Alert>
        )}
        <Field label="Key Name" name="name" placeholder="e.g. laptop" required value={name} onChange={(event) => setName(event.target.value)} />
        <ScopeCheckboxes scopes={scopes} onChange={setScopes} />
        <div className="pk-dialog__footer">
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={name.trim() === '' || scopes.length === 0 || create.isPending}>
            {create.isPending ? 'Creating...' : 'Create Key'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function ApiKeysTab() {
  const tokens = useUserTokens();
  const deleteToken = useDeleteUserToken();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string>();
  const createButton = (label: string) => (
    <Button variant="primary" icon="plus" onClick={() => setCreating(true)}>
      {label}
    </Button>
  );
  return (
    <Card>
      <div className="pk-spread" style={{ flexWrap: 'wrap', marginBottom: 12 }}>
        <div>
          <h2 className="pk-card__title">API Keys</h2>
          <p className="pk-card__subtitle" style={{ marginBottom: 0 }}>
            Personal keys for scripts that act as you.
          </p>
        </div>
        {createButton('Create New Key')}
      </div>
      {tokens.isPending ? (
        <Skeleton height={60} />
      ) : tokens.isError ? (
        <ErrorPanel title="Could not load API keys" message={tokens.error.message} onRetry={() => void tokens.refetch()} />
      ) : tokens.data.length === 0 ? (
        <EmptyState icon="key" title="No API keys yet" action={createButton('Create Your First API Key')} />
      ) : (
        <ul className="pk-list" aria-label="API keys">
          {tokens.data.map((token) => (
            <li key={token.id} className="pk-spread">
              <div style={{ display: 'grid', gap: 4, minWidth: 0 }}>
                <strong>{token.name}</strong>
                <div className="pk-row">
                  {token.scopes.map((scope) => (
                    <Badge key={scope}>{scope}</Badge>
                  ))}
                </div>
                <div className="pk-row pk-muted" style={{ fontSize: 13, gap: 16 }}>
                  <span>Created {formatDate(token.createdAt)}</span>
                  <span>Last used {formatDate(token.lastUsed)}</span>
                </div>
              </div>
              <div className="pk-row" style={{ flexWrap: 'nowrap' }}>
                <CopyButton text={token.id} label="Copy key id" />
                <IconButton label="Delete" icon="trash" variant="danger" onClick={() => deleteToken.mutate(token.id)} />
              </div>
            </li>
          ))}
        </ul>
      )}
      <CreateKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(token) => {
          setCreating(false);
          setCreated(token);
        }}
      />
      <SecretShownOnceDialog title="API Key Created" secret={created} onDone={() => setCreated(undefined)} />
    </Card>
  );
}

function DeleteAccountDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const deleteAccount = useDeleteAccount();
  const [confirmation, setConfirmation] = useState('');
  const close = () => {
    setConfirmation('');
    deleteAccount.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (confirmation) deleteAccount.mutate(confirmation);
  };
  return (
    <Dialog open={open} onClose={close} title="Delete Account">
      <form className="pk-form" onSubmit={submit}>
        <div className="pk-alert" role="note">
          This permanently deletes your account, all of your workspaces with their repositories and packages, and every token and API key. Servers using
          them can no longer install from your repositories. This cannot be undone.
        </div>
        {deleteAccount.isError && (
          <Alert>{errorMessage(deleteAccount.error, 'Could not delete your account')}</Alert>
        )}
        <Field
          label="Password"
          type="password"
          name="confirmation"
          autoComplete="current-password"
          hint="If you sign in with Google only, type your email address instead."
          value={confirmation}
          onChange={(event) => setConfirmation(event.target.value)}
        />
        <div className="pk-dialog__footer">
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="danger" disabled={!confirmation || deleteAccount.isPending}>
            {deleteAccount.isPending ? 'Deleting...' : 'Delete my account'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function DangerZoneTab() {
  const exportData = useExportData();
  const [deleting, setDeleting] = useState(false);
  return (
    <Card className="pk-danger-zone">
      <h2 className="pk-card__title" style={{ color: 'var(--pk-danger)' }}>
        Danger Zone
      </h2>
      <ul className="pk-list">
        <li className="pk-spread" style={{ flexWrap: 'wrap' }}>
          <div>
            <strong>Export Data</strong>
            <p className="pk-muted" style={{ margin: 0 }}>
              Download a JSON file of your profile, workspaces, repositories and the metadata of their packages.
            </p>
            {exportData.isError && (
              <Alert>{errorMessage(exportData.error, 'Could not export your data')}</Alert>
            )}
          </div>
          <Button icon="download" disabled={exportData.isPending} onClick={() => exportData.mutate()}>
            {exportData.isPending ? 'Exporting...' : 'Export Data'}
          </Button>
        </li>
        <li className="pk-spread" style={{ flexWrap: 'wrap' }}>
          <div>
            <strong>Delete Account</strong>
            <p className="pk-muted" style={{ margin: 0 }}>
              Permanently remove your account and everything in it.
            </p>
          </div>
          <Button variant="danger" icon="trash" onClick={() => setDeleting(true)}>
            Delete Account
          </Button>
        </li>
      </ul>
      <DeleteAccountDialog open={deleting} onClose={() => setDeleting(false)} />
    </Card>
  );
}

export default function SettingsPage() {
  const [tab, setTab] = useState('profile');
  return (
    <div className="pk-page">
      <PageHeader title="Settings" description="Manage your account and preferences." />
      <div>
        <Tabs label="Settings" tabs={TABS} active={tab} onChange={setTab} />
        <TabPanel id={tab}>
          {tab === 'profile' && <WithProfile>{(profile) => <ProfileTab profile={profile} />}</WithProfile>}
          {tab === 'security' && <SecurityTab />}
          {tab === 'notifications' && <WithProfile>{(profile) => <NotificationsTab profile={profile} />}</WithProfile>}
          {tab === 'api-keys' && <ApiKeysTab />}
          {tab === 'danger' && <DangerZoneTab />}
        </TabPanel>
      </div>
    </div>
  );
}
