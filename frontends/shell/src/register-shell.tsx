import type { ConsoleRuntime } from '@packyard/console-kit';
import { ShellLayout } from './shell-layout';

/** The shell's own screens and frame; remotes in isolated dev mode register it too. */
export function registerShell(runtime: ConsoleRuntime): void {
  runtime.registerLayout(ShellLayout);
  runtime.registerRoute({ path: '/login', access: 'public', lazy: () => import('./screens/login-page') });
  runtime.registerRoute({ path: '/login/callback', access: 'public', lazy: () => import('./screens/login-callback-page') });
  runtime.registerRoute({ path: '/reset-password', access: 'public', lazy: () => import('./screens/reset-password-page') });
  runtime.registerRoute({ path: '/status', access: 'public', lazy: () => import('./screens/status-page') });
  runtime.registerRoute({ path: '/billing', lazy: () => import('./screens/billing-page') });
  runtime.registerNavigationItem({ label: 'Billing', to: '/billing', order: 50, icon: 'card' });
}
