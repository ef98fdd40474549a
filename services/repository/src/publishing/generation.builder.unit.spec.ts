import { describe, expect, it } from 'vitest';
import type { Advisory } from '@packyard/proto/packyard/repository/v1/advisories';
import { advisoriesFor } from './generation.builder';

const pkg = (name: string, distribution: string) => ({ name, epoch: 0, version: '2', release: '1', arch: 'noarch', distribution });
const advisory = (id: string, issuedAt: string, packages: Advisory['packages']): Advisory => ({
  id, repositoryId: 'r-1', type: 'security', severity: '', title: id, description: '', issuedAt, updatedAt: issuedAt, references: [], packages, createdAt: issuedAt,
});

describe('advisoriesFor', () => {
  const advisories = [
    advisory('B', '2026-02-01T00:00:00.000Z', [pkg('one', 'el/9'), pkg('two', 'el/any-version')]),
    advisory('A', '2026-01-01T00:00:00.000Z', [pkg('three', 'any-distro/any-version')]),
    advisory('C', '2026-03-01T00:00:00.000Z', [pkg('four', 'fedora/39')]),
  ];

  it('gives a distribution the advisories whose packages it shows, each with those packages only, oldest first', () => {
    expect(advisoriesFor({ distro: 'el', version: '9' }, advisories).map((item) => [item.id, item.packages.map((p) => p.name)])).toEqual([['A', ['three']], ['B', ['one', 'two']]]);
    expect(advisoriesFor({ distro: 'el', version: '8' }, advisories).map((item) => [item.id, item.packages.map((p) => p.name)])).toEqual([['A', ['three']], ['B', ['two']]]);
    expect(advisoriesFor({ distro: 'opensuse', version: 'tumbleweed' }, advisories).map((item) => item.id)).toEqual(['A']);
  });
});
