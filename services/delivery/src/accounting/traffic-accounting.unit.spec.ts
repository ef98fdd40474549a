import { describe, expect, it } from 'vitest';
import type { TokenVerdict } from '../auth/token-verdicts';
import type { RepositoryRecord } from '../catalog/served-file';
import { TrafficAccounting } from './traffic-accounting';

const repository: RepositoryRecord = { id: 'r1', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme', name: 'tools', ownerId: 'u1', codename: '', component: '' };
const token: TokenVerdict = { valid: true, kind: 'repo_token', tokenId: 't1', ownerId: 'u1', scopes: [], repositoryId: 'r1' };
const other: TokenVerdict = { ...token, tokenId: 't2' };

describe('TrafficAccounting', () => {
  it('sums requests and bytes per repository and token, and downloads per package and token', async () => {
    const accounting = new TrafficAccounting(async (_repo, sha) => (sha === 'aa' ? 'p1' : undefined));
    accounting.served(repository, token, 100, Date.parse('2024-03-05T10:00:00Z'));
    accounting.served(repository, token, 50, Date.parse('2024-03-05T10:00:01Z'));
    accounting.served(repository, other, 7, Date.parse('2024-03-05T10:00:02Z'));
    accounting.downloaded(repository, token, 'aa', 40, Date.parse('2024-03-05T10:00:01Z'));
    accounting.downloaded(repository, token, 'aa', 40, Date.parse('2024-03-05T10:00:03Z'));
    accounting.downloaded(repository, token, 'unknown', 40, Date.parse('2024-03-05T10:00:03Z'));

    const messages = await accounting.drain();
    expect(messages.map((m) => [m.type, m.key, m.data])).toEqual([
      ['FilesServed', 'r1', expect.objectContaining({ tokenId: 't1', tokenKind: 'repo_token', workspaceId: 'w1', requests: 2, bytes: 150, firstServedAt: '2024-03-05T10:00:00.000Z', lastServedAt: '2024-03-05T10:00:01.000Z' })],
      ['FilesServed', 'r1', expect.objectContaining({ tokenId: 't2', requests: 1, bytes: 7 })],
      ['PackageDownloaded', 'r1', expect.objectContaining({ packageId: 'p1', tokenId: 't1', count: 2, bytes: 80, downloadedAt: '2024-03-05T10:00:03.000Z' })],
    ]);
    expect(new Set(messages.map((m) => m.id)).size).toBe(3);
  });

  it('starts from zero after a drain', async () => {
    const accounting = new TrafficAccounting(async () => 'p1');
    accounting.served(repository, token, 1, 0);
    await accounting.drain();
    expect(await accounting.drain()).toEqual([]);
  });

  it("adds another process's totals to its own (an edge worker's, in its primary)", async () => {
    const worker = new TrafficAccounting(async () => undefined);
    worker.served(repository, token, 100, 1_000);
    worker.served(repository, token, 20, 3_000);
    worker.downloaded(repository, token, 'aa', 40, 3_000);
    const primary = new TrafficAccounting(async () => 'p1');
    primary.served(repository, token, 5, 2_000);
    primary.downloaded(repository, token, 'aa', 40, 2_000);
    primary.add(JSON.parse(JSON.stringify(worker.take())));

    expect(await worker.drain()).toEqual([]);
    expect((await primary.drain()).map((m) => m.data)).toEqual([
      expect.objectContaining({ tokenId: 't1', requests: 3, bytes: 125, firstServedAt: new Date(1_000).toISOString(), lastServedAt: new Date(3_000).toISOString() }),
      expect.objectContaining({ packageId: 'p1', count: 2, bytes: 80, downloadedAt: new Date(3_000).toISOString() }),
    ]);
  });
});
