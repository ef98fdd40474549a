import { useEffect } from 'react';
import { useSessionState } from '../bootstrap/console-context';
import type { Theme } from '../resources/types';
import { useProfile } from '../resources/user';

const THEME_STORAGE_KEY = 'packyard.theme';
const DARK_SCHEME = '(prefers-color-scheme: dark)';

/** Colours follow the profile's theme; `system` follows the operating system. */
export function applyTheme(theme: Theme): void {
  localStorage.setItem(THEME_STORAGE_KEY, theme);
  const dark = theme === 'dark' || (theme === 'system' && window.matchMedia(DARK_SCHEME).matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

/** The theme chosen last on this browser, applied before the first paint of the console. */
export function applyStoredTheme(): void {
  const stored = localStorage.getItem(THEME_STORAGE_KEY);
  applyTheme(stored === 'dark' || stored === 'light' ? stored : 'system');
}

/**
 * The profile's theme, on every device: applied once the signed-in user's profile is
 * known (a new browser too) and whenever it changes; `system` also follows the operating
 * system while the console is open. The stored copy only spares the first paint a flash.
 */
export function useProfileTheme(): void {
  const signedIn = useSessionState().status === 'signed-in';
  const profile = useProfile({ enabled: signedIn });
  const theme = signedIn ? profile.data?.theme : undefined;
  useEffect(() => {
    if (!theme) return;
    applyTheme(theme);
    if (theme !== 'system') return;
    const scheme = window.matchMedia(DARK_SCHEME);
    const follow = () => applyTheme('system');
    scheme.addEventListener('change', follow);
    return () => scheme.removeEventListener('change', follow);
  }, [theme]);
}
