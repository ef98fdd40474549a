import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import type { Advisory } from '@packyard/proto/packyard/repository/v1/advisories';
import { advisoriesDecider, type AdvisoriesCommand, type AdvisoryInput } from './advisories.decider';
import type { AdvisoriesEvent } from './advisory.events';

const now = '2026-03-04T05:06:07.000Z';
const pkg = { name: 'hello', epoch: 0, version: '2.0', release: '1.el9', arch: 'x86_64', uploadDistribution: { distro: 'el', version: '9' } };
const input = (overrides: Partial<AdvisoryInput> = {}): AdvisoryInput => ({
  id: '', type: 'security', severity: 'important', title: 'hello: buffer overflow', description: 'Fixed.', issuedAt: '', updatedAt: '',
  references: [{ type: 'cve', id: 'CVE-2026-1234', href: '', title: '' }], packages: [pkg], ...overrides,
});
const create = (overrides: Partial<AdvisoryInput> = {}): AdvisoriesCommand => ({ type: 'CreateAdvisory', repositoryId: 'repo-1', advisory: input(overrides), now });
const advisory = (overrides: Partial<Advisory> = {}): Advisory => ({
  id: 'PKY-2026-0001', repositoryId: 'repo-1', type: 'security', severity: 'Important', title: 'hello: buffer overflow', description: 'Fixed.',
  issuedAt: now, updatedAt: now, references: [{ type: 'cve', id: 'CVE-2026-1234', href: 'https://www.cve.org/CVERecord?id=CVE-2026-1234', title: 'CVE-2026-1234' }],
  packages: [pkg], createdAt: now, ...overrides,
});
const created = (overrides: Partial<Advisory> = {}): AdvisoriesEvent => ({ type: 'AdvisoryCreated', data: { advisory: advisory(overrides) } });
const deleted = (advisoryId: string): AdvisoriesEvent => ({ type: 'AdvisoryDeleted', data: { repositoryId: 'repo-1', advisoryId, deletedAt: now } });
const spec = deciderSpec(advisoriesDecider);

describe('advisories decider', () => {
  it('numbers advisories PKY-<year of issue>-<number>, fills CVE links and the dates, and names severities as Red Hat does', () => {
    spec.given([]).when(create()).then([created()]);
    spec.given([created()]).when(create()).then([created({ id: 'PKY-2026-0002' })]);
    spec
      .given([created()])
      .when(create({ issuedAt: '2025-12-31T23:00:00Z', updatedAt: '2026-01-02T00:00:00+01:00' }))
      .then([created({ id: 'PKY-2025-0001', issuedAt: '2025-12-31T23:00:00.000Z', updatedAt: '2026-01-01T23:00:00.000Z' })]);
  });

  it('keeps an id given by the user, and never hands out a number again once used, even after deletion', () => {
    spec.given([]).when(create({ id: 'ACME-SA-7' })).then([created({ id: 'ACME-SA-7' })]);
    spec.given([created({ id: 'PKY-2026-0007' })]).when(create()).then([created({ id: 'PKY-2026-0008' })]);
    spec.given([created(), deleted('PKY-2026-0001')]).when(create()).then([created({ id: 'PKY-2026-0002' })]);
  });

  it('refuses an id that exists with 409, and frees it on deletion', () => {
    spec.given([created()]).when(create({ id: 'PKY-2026-0001' })).thenThrows('Advisory PKY-2026-0001 already exists in this repository');
    spec.given([created(), deleted('PKY-2026-0001')]).when(create({ id: 'PKY-2026-0001' })).then([created()]);
  });

  it('refuses what dnf could not read or that would not name a package: type, severity, title, dates, references, packages', () => {
    spec.given([]).when(create({ type: 'newpackage' })).thenThrows('Advisory type must be one of security, bugfix, enhancement');
    spec.given([]).when(create({ severity: 'urgent' })).thenThrows('Advisory severity must be one of Low, Moderate, Important, Critical');
    spec.given([]).when(create({ title: ' ' })).thenThrows('Advisory title is required');
    spec.given([]).when(create({ id: 'a b' })).thenThrows(/Advisory id may only contain/);
    spec.given([]).when(create({ issuedAt: 'yesterday' })).thenThrows(/issuedAt must be an ISO 8601 date/);
    spec.given([]).when(create({ issuedAt: '2026-03-04T00:00:00Z', updatedAt: '2026-03-03T00:00:00Z' })).thenThrows('updatedAt must not be before issuedAt');
    spec.given([]).when(create({ references: [{ type: 'cve', id: 'CVE-26-1', href: '', title: '' }] })).thenThrows(/references\[0\]\.id must be a CVE id/);
    spec.given([]).when(create({ references: [{ type: 'self', id: 'x', href: 'javascript:alert(1)', title: '' }] })).thenThrows(/href must be an http\(s\) URL/);
    spec.given([]).when(create({ packages: [] })).thenThrows(/names 1 to 1000 packages/);
    spec.given([]).when(create({ packages: [{ ...pkg, name: 'a/b' }] })).thenThrows(/packages\[0\]\.name/);
    spec.given([]).when(create({ packages: [{ ...pkg, version: '1 0' }] })).thenThrows(/packages\[0\]\.version/);
    spec.given([]).when(create({ packages: [{ ...pkg, uploadDistribution: { distro: 'ubuntu', version: 'noble' } }] })).thenThrows(/packages\[0\]\.distribution must be one of: el\/9/);
  });

  it('deletes an advisory once', () => {
    spec.given([created()]).when({ type: 'DeleteAdvisory', repositoryId: 'repo-1', advisoryId: 'PKY-2026-0001', now }).then([deleted('PKY-2026-0001')]);
    spec.given([created(), deleted('PKY-2026-0001')]).when({ type: 'DeleteAdvisory', repositoryId: 'repo-1', advisoryId: 'PKY-2026-0001', now }).thenThrows('Advisory not found');
  });
});
