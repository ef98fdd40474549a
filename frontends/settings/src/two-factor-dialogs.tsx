import { Alert, Button, CodeBlock, Dialog, errorMessage, Field, Skeleton, useDisableTwoFactor, useEnableTwoFactor, useSetupTwoFactor } from '@packyard/console-kit';
import { type FormEvent, useEffect, useRef, useState } from 'react';

/** Enable: scan or type the secret, confirm with a code, then keep the recovery codes shown this once. */
export function EnableTwoFactorDialog({ onClose }: { onClose: () => void }) {
  const setup = useSetupTwoFactor();
  const enable = useEnableTwoFactor();
  const [code, setCode] = useState('');
  const { mutate: startSetup } = setup;
  // one secret per opening (StrictMode runs effects twice in development)
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    startSetup();
  }, [startSetup]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (code.trim()) enable.mutate(code.trim());
  };
  if (enable.data) {
    return (
      <Dialog
        open
        onClose={onClose}
        title="Save Your Recovery Codes"
        footer={
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        }
      >
        <div className="pk-notice" role="note">
          Two-factor authentication is on. Keep these codes somewhere safe: each one signs you in once if you lose your authenticator app. You won't be able to see them
          again!
        </div>
        <CodeBlock code={enable.data.recoveryCodes.join('\n')} copyLabel="Copy recovery codes" />
      </Dialog>
    );
  }
  return (
    <Dialog open onClose={onClose} title="Enable Two-Factor Authentication" description="Add Packyard to an authenticator app (Google Authenticator, 1Password, Aegis…), then enter the code it shows.">
      {setup.isError ? (
        <Alert>{errorMessage(setup.error, 'Could not start two-factor setup')}</Alert>
      ) : !setup.data ? (
        <Skeleton height={120} />
      ) : (
        <form className="pk-form" onSubmit={submit}>
          <p style={{ margin: 0 }}>
            <a href={setup.data.otpauthUri}>Open in your authenticator app</a>, or type this secret into it:
          </p>
          <CodeBlock code={setup.data.secret} copyLabel="Copy secret" wrap />
          {enable.isError && (
            <Alert>{errorMessage(enable.error, 'Could not enable two-factor authentication')}</Alert>
          )}
          <Field label="Authentication code" name="code" autoComplete="one-time-code" inputMode="numeric" required value={code} onChange={(event) => setCode(event.target.value)} />
          <div className="pk-dialog__footer">
            <Button onClick={onClose}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={!code.trim() || enable.isPending}>
              {enable.isPending ? 'Enabling...' : 'Enable'}
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

export function DisableTwoFactorDialog({ onClose }: { onClose: () => void }) {
  const disable = useDisableTwoFactor();
  const [code, setCode] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (code.trim()) disable.mutate(code.trim(), { onSuccess: onClose });
  };
  return (
    <Dialog open onClose={onClose} title="Disable Two-Factor Authentication" description="Sign-in will ask for your password only. Confirm with a code from your authenticator app or a recovery code.">
      <form className="pk-form" onSubmit={submit}>
        {disable.isError && (
          <Alert>{errorMessage(disable.error, 'Could not disable two-factor authentication')}</Alert>
        )}
        <Field label="Authentication code" name="code" autoComplete="one-time-code" required value={code} onChange={(event) => setCode(event.target.value)} />
        <div className="pk-dialog__footer">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="danger" disabled={!code.trim() || disable.isPending}>
            {disable.isPending ? 'Disabling...' : 'Disable'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
