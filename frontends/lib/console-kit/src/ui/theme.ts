import type { Theme } from '../resources/types';

const THEME_STORAGE_KEY = 'packyard.theme';

/** Colours follow the profile's theme; `system` follows the operating system. */
export function applyTheme(theme: Theme): void {
  localStorage.setItem(THEME_STORAGE_KEY, theme);
  const dark = theme === 'dark' || (theme === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

/** The theme chosen last on this browser, applied before the first paint of the console. */
export function applyStoredTheme(): void {
  const stored = localStorage.getItem(THEME_STORAGE_KEY);
  applyTheme(stored === 'dark' || stored === 'light' ? stored : 'system');
}
