import type { CreateRepositoryPayload, Repository } from '@packyard/console-kit';

/** Spec §3: a new repository is DEB, codename stable, component main unless changed. */
export const NEW_REPOSITORY_DEFAULTS: CreateRepositoryPayload = { name: '', kind: 'DEB', codename: 'stable', component: 'main' };

/** Spec §2: case-insensitive "contains" on the name. */
export function filterRepositoriesByName(repositories: Repository[], search: string): Repository[] {
  const needle = search.trim().toLowerCase();
  if (!needle) return repositories;
  return repositories.filter((repository) => repository.name.toLowerCase().includes(needle));
}

export function repositoryDeleteConfirmation(name: string): string {
  return `Are you sure you want to delete "${name}"? This action cannot be undone.`;
}
