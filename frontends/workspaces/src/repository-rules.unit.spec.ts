import type { Repository } from '@packyard/console-kit';
import { describe, expect, it } from 'vitest';
import { filterRepositoriesByName, NEW_REPOSITORY_DEFAULTS, repositoryDeleteConfirmation } from './repository-rules';

const repository = (name: string) => ({ id: name, name }) as Repository;

describe('repository rules', () => {
  it('filters by a case-insensitive substring of the name', () => {
    const all = [repository('Backend-Tools'), repository('frontend'), repository('infra')];
    expect(filterRepositoriesByName(all, 'END').map((r) => r.name)).toEqual(['Backend-Tools', 'frontend']);
    expect(filterRepositoriesByName(all, '  ')).toBe(all);
    expect(filterRepositoriesByName(all, 'zzz')).toEqual([]);
  });
  it('defaults new repositories to DEB stable/main', () => {
    expect(NEW_REPOSITORY_DEFAULTS).toEqual({ name: '', kind: 'DEB', codename: 'stable', component: 'main' });
  });
  it('asks with the exact confirmation text', () => {
    expect(repositoryDeleteConfirmation('tools')).toBe('Are you sure you want to delete "tools"? This action cannot be undone.');
  });
});
