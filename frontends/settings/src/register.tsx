import type { ConsoleRuntime } from '@packyard/console-kit';

/** Profile, security, notifications, API keys and the danger zone. */
export function register(runtime: ConsoleRuntime): void {
  runtime.registerRoute({ path: '/settings', lazy: () => import('./settings-page') });
  runtime.registerNavigationItem({ label: 'Settings', to: '/settings', order: 40, icon: 'settings' });
}
