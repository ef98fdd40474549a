import type { BadgeTone, TokenScope } from '@packyard/console-kit';

/** Spec §2: read blue, publish green, admin red. */
export const SCOPE_TONES: Record<TokenScope, BadgeTone> = { read: 'blue', publish: 'green', admin: 'red' };

export const DEFAULT_SCOPES: TokenScope[] = ['read'];

export function tokenDeleteConfirmation(name: string): string {
  return `Are you sure you want to delete token "${name}"? This action cannot be undone.`;
}

/** Spec §5: a name and at least one scope. */
export function canCreateToken(name: string, scopes: TokenScope[]): boolean {
  return name.trim().length > 0 && scopes.length > 0;
}
