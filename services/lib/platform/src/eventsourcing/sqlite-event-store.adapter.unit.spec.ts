import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { eventStoreContract } from '@packyard/testing/contracts/event-store.contract';
import { createEventStore } from './event-store.factory';
import { SqliteEventStore } from './sqlite-event-store.adapter';

eventStoreContract('SQLite', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-events-'));
  return {
    open: () => createEventStore({ kind: 'sqlite', dataDir, module: 'workspace' }),
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});

describe('SQLite event store subscriptions', () => {
  const event = { id: 'event-1', type: 'Happened', data: {} };
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('do not read the log while nothing is appended, and see an append of another process on the same file within a few check intervals', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-events-'));
    const file = join(dataDir, 'events.db');
    const polling = { pollIntervalMs: 20, batchSize: 500, retryInitialMs: 10, retryMaxMs: 40 };
    const reader = SqliteEventStore.open(file, polling);
    // another connection on the file: what another process's store is to this one
    const writer = SqliteEventStore.open(file, polling);
    try {
      const reads = vi.spyOn(reader, 'readAll');
      const seen: string[] = [];
      const subscriptions = Array.from({ length: 10 }, () => reader.subscribe(0, async (recorded) => void seen.push(recorded.stream)));
      await settle(300);
      // one first read each; polling every 20 ms read 150 times here
      expect(reads.mock.calls.length).toBeLessThanOrEqual(10);
      const appendedAt = performance.now();
      await writer.append('elsewhere-1', 'NO_STREAM', [event]);
      while (seen.length < 10 && performance.now() - appendedAt < 2_000) await settle(5);
      expect(seen).toEqual(Array(10).fill('elsewhere-1'));
      // the subscriptions' own wait is a second: the check of the file woke them
      expect(performance.now() - appendedAt).toBeLessThan(500);
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    } finally {
      await reader.close();
      await writer.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
