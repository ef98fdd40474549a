// The console kit: everything the shell and the remotes share. See README.md.
export { ApiError, apiErrorFrom, errorMessage } from './api/api-error';
export { API_BASE_PATH, createApiClient, type ApiClient, type RequestOptions } from './api/api-client';
export { createSession, type Session, type SessionState, type AuthAnswer } from './session/session';
export type { ConsoleRuntime, NavigationItem, RegisterModule, RemoteModule, RouteRegistration } from './runtime/runtime';
export { bootstrapConsole, type BootstrapOptions } from './bootstrap/bootstrap-console';
export { useConsole, useSessionState } from './bootstrap/console-context';
export { createConsoleQueryClient, FRESH_FOR_FIVE_MINUTES } from './query/query-client';
export { formatBytes, formatDate, usageBarWidth, usagePercent } from './format/format';
export { deriveSlug, SLUG_HINT, SLUG_PATTERN } from './format/slug';
export * from './resources/types';
export * from './resources/usage';
export * from './resources/workspaces';
export * from './resources/repositories';
export * from './resources/access-tokens';
export * from './resources/user';
export * from './ui/components';
export { Icon, isIconName, type IconName } from './ui/icons';
export { applyTheme } from './ui/theme';
