import type { ConsoleRuntime } from '@packyard/console-kit';

/** The repository page: header, breadcrumb and its tabs (the tab is the last path segment). */
export function register(runtime: ConsoleRuntime): void {
  runtime.registerRoute({ path: '/workspaces/:workspaceId/repos/:id/*', lazy: () => import('./repository-page') });
}
