import { FullPageSpinner, useConsole } from '@packyard/console-kit';
import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { parseCallbackFragment, safeReturnPath, takeRememberedReturnTo } from '../sign-in-return';

/** Where Google sign-in lands: take the tokens out of the fragment and go on. */
export default function LoginCallbackPage() {
  const { session } = useConsole();
  const navigate = useNavigate();
  useEffect(() => {
    const tokens = parseCallbackFragment(window.location.hash);
    const remembered = takeRememberedReturnTo();
    if (!tokens) {
      navigate(`/login?error=${encodeURIComponent('Google sign-in failed')}`, { replace: true });
      return;
    }
    session.accept(tokens);
    navigate(tokens.returnTo ? safeReturnPath(tokens.returnTo) : remembered, { replace: true });
  }, [navigate, session]);
  return <FullPageSpinner />;
}
