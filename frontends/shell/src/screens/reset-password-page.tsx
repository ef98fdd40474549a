import { accountPasswordProblem, Alert, Button, errorMessage, Field, useResetPassword } from '@packyard/console-kit';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { AuthCard } from './auth-card';

/** Where the e-mailed link lands: /reset-password#token=… (the fragment never reaches a server). */
export default function ResetPasswordPage() {
  const [token] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '');
  const reset = useResetPassword();
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [problem, setProblem] = useState<string>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = accountPasswordProblem(password, confirmation);
    setProblem(found);
    if (!found) reset.mutate({ token, newPassword: password });
  };
  const shown = problem ?? (reset.isError ? errorMessage(reset.error, 'Could not reset the password') : undefined);
  return (
    <AuthCard icon="key" title="Choose a new password">
        {!token ? (
          <Alert>This link is incomplete. Open the link from the email again, or ask for a new one on the sign-in page.</Alert>
        ) : reset.isSuccess ? (
          <div className="pk-notice" role="status">
            Your password has been changed and every session was signed out. Sign in with your new password.
          </div>
        ) : (
          <form className="pk-form" onSubmit={submit}>
            {shown && (
              <Alert>{shown}</Alert>
            )}
            <Field label="New password" type="password" name="password" autoComplete="new-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
            <Field label="Confirm new password" type="password" name="confirmPassword" autoComplete="new-password" required value={confirmation} onChange={(event) => setConfirmation(event.target.value)} />
            <Button type="submit" variant="primary" disabled={reset.isPending}>
              {reset.isPending ? 'Saving...' : 'Set new password'}
            </Button>
          </form>
        )}
        <p className="pk-auth__footer">
          <Link to="/login">Back to sign in</Link>
        </p>
    </AuthCard>
  );
}
