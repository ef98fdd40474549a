import type { ConsoleRuntime } from '@packyard/console-kit';

/** Account-wide access tokens. */
export function register(runtime: ConsoleRuntime): void {
  runtime.registerRoute({ path: '/tokens', lazy: () => import('./access-tokens-page') });
  runtime.registerNavigationItem({ label: 'Access Tokens', to: '/tokens', order: 30, icon: 'key' });
}
