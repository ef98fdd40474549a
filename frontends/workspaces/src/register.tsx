import type { ConsoleRuntime } from '@packyard/console-kit';

const dashboardPage = () => import('./dashboard-page');

/** Dashboard, workspaces, a workspace's repositories, its audit log and its webhooks. */
export function register(runtime: ConsoleRuntime): void {
  runtime.registerRoute({ path: '/', lazy: dashboardPage });
  runtime.registerRoute({ path: '/dashboard', lazy: dashboardPage });
  runtime.registerRoute({ path: '/workspaces', lazy: () => import('./workspaces-page') });
  runtime.registerRoute({ path: '/workspaces/:workspaceId/repos', lazy: () => import('./workspace-repositories-page') });
  runtime.registerRoute({ path: '/workspaces/:workspaceId/audit', lazy: () => import('./audit-log-page') });
  runtime.registerRoute({ path: '/workspaces/:workspaceId/webhooks', lazy: () => import('./webhooks-page') });
  runtime.registerNavigationItem({ label: 'Dashboard', to: '/dashboard', order: 10, icon: 'dashboard', exact: true });
  runtime.registerNavigationItem({ label: 'Workspaces', to: '/workspaces', order: 20, icon: 'folder' });
}
