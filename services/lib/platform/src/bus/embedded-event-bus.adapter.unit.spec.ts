import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventBusContract } from '@packyard/testing/contracts/event-bus.contract';
import { waitFor } from '@packyard/testing/wait-for';
import { openSqlite } from '../eventsourcing/sqlite-database';
import { defaultEmbeddedBusSettings, EmbeddedEventBus, embeddedBusFile } from './embedded-event-bus.adapter';

eventBusContract('embedded (SQLite)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-bus-'));
  return {
    open: async () => EmbeddedEventBus.open(embeddedBusFile(dataDir), { ...defaultEmbeddedBusSettings, retry: { initialDelayMs: 10, maxDelayMs: 40 } }),
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}, { oneConsumerPerGroup: 'the embedded log serves the modules of one process: a group has one consumer' });

describe('embedded bus durability', () => {
  it('publishes with a synced commit still after consumers committed their progress unsynced, and the progress holds across a reopen', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-bus-'));
    const db = openSqlite(embeddedBusFile(dataDir), { durable: true });
    const bus = new EmbeddedEventBus(db, { ...defaultEmbeddedBusSettings, pollIntervalMs: 10 });
    try {
      const seen: string[] = [];
      const consumer = await bus.subscribe({ group: 'g', topics: ['t'] }, async (message) => void seen.push(message.id));
      await bus.publish('t', [{ id: 'one', type: 'Happened', key: 'k', data: {} }]);
      await waitFor('the message handled and its progress committed', async () => (seen.length === 1 && progress(dataDir) === 1 ? true : undefined), { timeoutMs: 5_000 });
      // FULL (2): the next publish is synced, and with it the progress written before it
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      await consumer.stop();
      await bus.publish('t', [{ id: 'two', type: 'Happened', key: 'k', data: {} }]);
      await bus.close();
      const reopened = EmbeddedEventBus.open(embeddedBusFile(dataDir), { ...defaultEmbeddedBusSettings, pollIntervalMs: 10 });
      const again: string[] = [];
      await reopened.subscribe({ group: 'g', topics: ['t'] }, async (message) => void again.push(message.id));
      await waitFor('the second message', async () => (again.length ? true : undefined), { timeoutMs: 5_000 });
      expect(again).toEqual(['two']);
      await reopened.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** the committed offset of group g on topic t, read through a connection of its own */
function progress(dataDir: string): number | undefined {
  const reader = openSqlite(embeddedBusFile(dataDir), { durable: false });
  try {
    return (reader.prepare("SELECT committed FROM consumer_offsets WHERE group_name = 'g' AND topic = 't'").get() as { committed: number } | undefined)?.committed;
  } finally {
    reader.close();
  }
}
