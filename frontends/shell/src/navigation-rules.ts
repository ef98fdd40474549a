import type { NavigationItem } from '@packyard/console-kit';

/** Spec §2: Dashboard is active only on an exact match, every other entry on a path prefix. */
export function isNavigationItemActive(item: Pick<NavigationItem, 'to' | 'exact'>, pathname: string): boolean {
  if (item.exact) return pathname === item.to;
  return pathname === item.to || pathname.startsWith(`${item.to}/`);
}
