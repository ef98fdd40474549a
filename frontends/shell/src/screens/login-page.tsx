import {
  accountPasswordProblem,
  Alert,
  Button,
  errorMessage,
  Field,
  FullPageSpinner,
  useConsole,
  useRequestPasswordReset,
  useSessionState,
  useSignInOptions,
} from '@packyard/console-kit';
import { type FormEvent, useState } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router-dom';
import { googleSignInUrl, rememberReturnTo, returnPathFrom } from '../sign-in-return';
import { AuthCard } from './auth-card';

function GoogleMark() {
  return (
    <svg width="18" height="18" viewBox="0 0 48 48" aria-hidden="true">
      <path fill="#FFC107" d="M43.6 20.5H42V20H24v8h11.3C33.7 32.7 29.2 36 24 36c-6.6 0-12-5.4-12-12s5.4-12 12-12c3.1 0 5.8 1.2 7.9 3.1l5.7-5.7C34 6.1 29.3 4 24 4 12.9 4 4 12.9 4 24s8.9 20 20 20 20-8.9 20-20c0-1.3-.1-2.4-.4-3.5z" />
      <path fill="#FF3D00" d="m6.3 14.7 6.6 4.8C14.7 15.1 19 12 24 12c3.1 0 5.8 1.2 7.9 3.1l5.7-5.7C34 6.1 29.3 4 24 4 16.3 4 9.7 8.3 6.3 14.7z" />
      <path fill="#4CAF50" d="M24 44c5.2 0 9.9-2 13.4-5.2l-6.2-5.2C29.2 35.1 26.7 36 24 36c-5.2 0-9.6-3.3-11.3-7.9l-6.5 5C9.5 39.6 16.2 44 24 44z" />
      <path fill="#1976D2" d="M43.6 20.5H42V20H24v8h11.3c-.8 2.2-2.2 4.2-4.1 5.6l6.2 5.2C37 39.2 44 34 44 24c0-1.3-.1-2.4-.4-3.5z" />
    </svg>
  );
}

export default function LoginPage() {
  const { session } = useConsole();
  const { status } = useSessionState();
  const location = useLocation();
  const [searchParams] = useSearchParams();
  const [mode, setMode] = useState<'sign-in' | 'create'>('sign-in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [busy, setBusy] = useState(false);
  // set once the password was right for an account that asks for a second factor
  const [challenge, setChallenge] = useState<string>();
  const [code, setCode] = useState('');
  const [forgotten, setForgotten] = useState(false);
  const requestReset = useRequestPasswordReset();
  // The Google redirect comes back here with ?error=<message> when sign-in failed.
  const redirectError = searchParams.has('error') ? searchParams.get('error') || 'Google sign-in failed' : undefined;
  const [error, setError] = useState<string | undefined>(redirectError);
  const returnTo = returnPathFrom(location.state);
  const signInOptions = useSignInOptions();
  // until the server has answered, the button stays: starting an unconfigured sign-in comes back here with the reason
  const googleOff = signInOptions.data?.google === false;

  if (status === 'checking') return <FullPageSpinner />;
  if (status === 'signed-in') return <Navigate to={returnTo} replace />;

  const creating = mode === 'create';
  const switchMode = () => {
    setMode(creating ? 'sign-in' : 'create');
    setError(undefined);
    setConfirmation('');
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (creating) {
      const problem = accountPasswordProblem(password, confirmation);
      if (problem) return setError(problem);
    }
    setError(undefined);
    setBusy(true);
    try {
      if (creating) await session.register(email, password);
      else {
        const { twoFactorChallenge } = await session.signIn(email, password);
        if (twoFactorChallenge) {
          setChallenge(twoFactorChallenge);
          setBusy(false);
        }
      }
    } catch (failure) {
      setError(errorMessage(failure, creating ? 'Registration failed' : 'Login failed'));
      setBusy(false);
    }
  };

  const verify = async (event: FormEvent) => {
    event.preventDefault();
    if (!challenge) return;
    setError(undefined);
    setBusy(true);
    try {
      await session.completeTwoFactor(challenge, code.trim());
    } catch (failure) {
      setError(errorMessage(failure, 'Login failed'));
      setBusy(false);
    }
  };

  const startOver = () => {
    setChallenge(undefined);
    setCode('');
    setPassword('');
    setError(undefined);
  };

  if (forgotten) {
    const sendLink = (event: FormEvent) => {
      event.preventDefault();
      requestReset.mutate(email);
    };
    return (
      <AuthCard icon="key" title="Reset your password" subtitle="We will email you a link to choose a new password. It works once, within an hour.">
          {requestReset.isError && (
            <Alert>{errorMessage(requestReset.error, 'Could not send the reset link')}</Alert>
          )}
          {requestReset.isSuccess ? (
            <div className="pk-notice" role="status">
              {requestReset.data.message}
            </div>
          ) : (
            <form className="pk-form" onSubmit={sendLink}>
              <Field label="Email address" type="email" name="email" autoComplete="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
              <Button type="submit" variant="primary" disabled={requestReset.isPending}>
                {requestReset.isPending ? 'Sending...' : 'Send reset link'}
              </Button>
            </form>
          )}
          <p className="pk-auth__footer">
            <button
              type="button"
              className="pk-link-button"
              onClick={() => {
                requestReset.reset();
                setForgotten(false);
              }}
            >
              Back to sign in
            </button>
          </p>
      </AuthCard>
    );
  }

  if (challenge) {
    return (
      <AuthCard icon="shield" title="Two-factor authentication" subtitle="Enter the 6-digit code from your authenticator app, or one of your recovery codes.">
          {error && (
            <Alert>{error}</Alert>
          )}
          <form className="pk-form" onSubmit={verify}>
            <Field label="Authentication code" name="code" autoComplete="one-time-code" required autoFocus value={code} onChange={(event) => setCode(event.target.value)} />
            <Button type="submit" variant="primary" disabled={busy}>
              {busy ? 'Verifying...' : 'Verify'}
            </Button>
          </form>
          <p className="pk-auth__footer">
            <button type="button" className="pk-link-button" onClick={startOver}>
              Back to sign in
            </button>
          </p>
      </AuthCard>
    );
  }

  const signInWithGoogle = () => {
    try {
      rememberReturnTo(returnTo);
      window.location.assign(googleSignInUrl(returnTo));
    } catch (failure) {
      setError(errorMessage(failure, 'Google sign-in failed'));
    }
  };

  return (
    <AuthCard icon="package" title={creating ? 'Create your account' : 'Sign in to Packyard'} subtitle={creating ? 'Host private APT and YUM repositories in minutes.' : 'Welcome back. Sign in to manage your repositories.'}>
        {error && (
          <Alert>{error}</Alert>
        )}
        <form className="pk-form" onSubmit={submit}>
          <Field label="Email address" type="email" name="email" autoComplete="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
          <Field
            label="Password"
            type="password"
            name="password"
            autoComplete={creating ? 'new-password' : 'current-password'}
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
          {creating && (
            <Field
              label="Confirm password"
              type="password"
              name="confirmPassword"
              autoComplete="new-password"
              required
              value={confirmation}
              onChange={(event) => setConfirmation(event.target.value)}
            />
          )}
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? (creating ? 'Creating account...' : 'Signing in...') : creating ? 'Create account' : 'Sign in'}
          </Button>
        </form>
        {!creating && signInOptions.data?.passwordReset && (
          <p className="pk-auth__footer" style={{ margin: 0 }}>
            <button
              type="button"
              className="pk-link-button"
              onClick={() => {
                setError(undefined);
                setForgotten(true);
              }}
            >
              Forgot password?
            </button>
          </p>
        )}
        <div className="pk-auth__divider">or</div>
        <Button onClick={signInWithGoogle} disabled={googleOff} aria-describedby={googleOff ? 'pk-google-off' : undefined}>
          <GoogleMark />
          Sign in with Google
        </Button>
        {googleOff && (
          <p id="pk-google-off" className="pk-muted" style={{ margin: 0, fontSize: 13, textAlign: 'center' }}>
            Google sign-in is not set up on this server. Sign in with your email and password.
          </p>
        )}
        <p className="pk-auth__footer">
          {creating ? 'Already have an account? ' : "Don't have an account? "}
          <button type="button" className="pk-link-button" onClick={switchMode}>
            {creating ? 'Sign in' : 'Create an account'}
          </button>
        </p>
        <p className="pk-auth__footer">
          <a href="/status">System status</a>
        </p>
    </AuthCard>
  );
}
