import {
  applyTheme,
  Badge,
  Button,
  Card,
  Checkbox,
  CopyButton,
  EmptyState,
  ErrorPanel,
  errorMessage,
  Field,
  formatDate,
  IconButton,
  PageHeader,
  Select,
  Skeleton,
  TabPanel,
  Tabs,
  type UserProfile,
  useDeleteUserToken,
  useProfile,
  useUpdateProfile,
  useUserSecurity,
  useUserTokens,
} from '@packyard/console-kit';
import { type FormEvent, type ReactNode, useState } from 'react';
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
  const [form, setForm] = useState(profile);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { email: _readOnly, ...settings } = form;
    update.mutate(settings, { onSuccess: () => applyTheme(settings.theme) });
  };
  return (
    <Card>
      <h2 className="pk-card__title">Profile</h2>
      <p className="pk-card__subtitle">How you appear and how the console looks for you.</p>
      <form className="pk-form" onSubmit={submit}>
        {update.isError && (
          <div className="pk-alert" role="alert">
            {errorMessage(update.error, 'Could not save your profile')}
          </div>
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
            onChange={(event) => setForm({ ...form, theme: event.target.value as UserProfile['theme'] })}
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
          <div className="pk-alert" role="alert">
            {errorMessage(update.error, 'Could not save your preferences')}
          </div>
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

/** Spec §2: these buttons are shown, but what they do is not specified. */
function SecurityTab() {
  const security = useUserSecurity();
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
          <Button>{enabled ? 'Disable' : 'Enable'}</Button>
        </div>
      </Card>
      <Card>
        <div className="pk-spread" style={{ flexWrap: 'wrap' }}>
          <div>
            <h2 className="pk-card__title">Password</h2>
            <p className="pk-card__subtitle" style={{ marginBottom: 0 }}>
              Last changed: {security.data.lastPasswordChange ? formatDate(security.data.lastPasswordChange) : 'Never'}
            </p>
          </div>
          <div className="pk-row">
            <Button>Change Password</Button>
            <Button>View Sessions</Button>
          </div>
        </div>
      </Card>
    </div>
  );
}

function ApiKeysTab() {
  const tokens = useUserTokens();
  const deleteToken = useDeleteUserToken();
  // Spec §2: the create buttons exist but their behaviour is not specified.
  const createButton = (label: string) => (
    <Button variant="primary" icon="plus">
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
                <CopyButton text={token.id} />
                <IconButton label="Delete" icon="trash" variant="danger" onClick={() => deleteToken.mutate(token.id)} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** Spec §2: shown, with behaviour not specified. */
function DangerZoneTab() {
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
              Download a copy of your workspaces, repositories and settings.
            </p>
          </div>
          <Button icon="download">Export Data</Button>
        </li>
        <li className="pk-spread" style={{ flexWrap: 'wrap' }}>
          <div>
            <strong>Delete Account</strong>
            <p className="pk-muted" style={{ margin: 0 }}>
              Permanently remove your account and everything in it.
            </p>
          </div>
          <Button variant="danger" icon="trash">
            Delete Account
          </Button>
        </li>
      </ul>
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
