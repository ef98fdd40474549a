import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@packyard/platform';
import { integrationData } from './token.events';

const recorded = (type: string, data: Record<string, unknown>): RecordedEvent => ({ id: 'e1', type, data, stream: 's', version: 1, position: 1, recordedAt: '2026-11-28T00:00:00.000Z', integration: true });

describe('what other modules receive of a token event', () => {
  it('given a repository token created, when it goes to the bus, then its sealed value stays behind and the rest goes', () => {
    const data = { tokenId: 't1', repositoryId: 'r1', ownerId: 'u1', name: 'ci', sealedValue: 'v1.sealed', valueHash: 'ab12', createdAt: '2026-11-28T00:00:00.000Z' };
    expect(integrationData(recorded('RepoTokenCreated', data))).toEqual({ tokenId: 't1', repositoryId: 'r1', ownerId: 'u1', name: 'ci', valueHash: 'ab12', createdAt: '2026-11-28T00:00:00.000Z' });
  });

  it('given any other token event, then it goes as recorded', () => {
    const data = { tokenId: 't2', ownerId: 'u1', name: 'deploy', scopes: ['read'], repositoryId: '', valueHash: 'cd34', createdAt: '2026-11-28T00:00:00.000Z' };
    const event = recorded('AccessTokenCreated', data);
    expect(integrationData(event)).toBe(event.data);
  });
});
