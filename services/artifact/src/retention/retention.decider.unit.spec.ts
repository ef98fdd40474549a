import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { retentionDecider } from './retention.decider';

const spec = deciderSpec(retentionDecider);
const set = (keepVersions: number, keepDownloadedDays: number) =>
  ({ type: 'SetRetentionPolicy', repositoryId: 'r1', workspaceId: 'w1', policy: { keepVersions, keepDownloadedDays }, now: '2026-01-01T00:00:00.000Z' }) as const;
const policySet = (keepVersions: number, keepDownloadedDays: number) =>
  ({ type: 'RetentionPolicySet', data: { repositoryId: 'r1', workspaceId: 'w1', keepVersions, keepDownloadedDays, setAt: '2026-01-01T00:00:00.000Z' } }) as const;

describe('retention decider', () => {
  it('sets a policy', () => spec.given([]).when(set(3, 30)).then([policySet(3, 30)]));

  it('changes it', () => spec.given([policySet(3, 30)]).when(set(5, 0)).then([policySet(5, 0)]));

  it('records nothing when the policy does not change (also "keep everything" on a repository without one)', () => {
    spec.given([policySet(3, 30)]).when(set(3, 30)).then([]);
    spec.given([]).when(set(0, 0)).then([]);
  });

  it('refuses numbers out of range or not whole', () => {
    spec.given([]).when(set(-1, 0)).thenThrows(/Versions to keep must be a whole number from 0 to 1000/);
    spec.given([]).when(set(1.5, 0)).thenThrows(/Versions to keep must be a whole number/);
    spec.given([]).when(set(2, 3651)).thenThrows(/Days a download protects a version must be a whole number from 0 to 3650/);
  });
});
