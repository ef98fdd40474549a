import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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

describe('embedded bus consumers', () => {
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('do not query the log while nothing is published, and see a publish of another process on the same file within a few check intervals', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-bus-'));
    let reads = 0;
    // every statement this connection runs, counted: a consumer's look for new messages is a SELECT on messages
    const db = new Database(embeddedBusFile(dataDir), { verbose: (sql) => void (String(sql).startsWith('SELECT * FROM messages') && reads++) });
    db.pragma('journal_mode = WAL');
    const settings = { ...defaultEmbeddedBusSettings, pollIntervalMs: 20 };
    const bus = new EmbeddedEventBus(db, settings);
    // another connection on the file: what another process's bus is to this one
    const other = EmbeddedEventBus.open(embeddedBusFile(dataDir), settings);
    try {
      const seen: string[] = [];
      const consumers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((topic) => bus.subscribe({ group: 'g', topics: [topic] }, async (message) => void seen.push(message.id))));
      await settle(300);
      // one first look each; polling every 20 ms looked 75 times here
      expect(reads).toBeLessThanOrEqual(5);
      const publishedAt = performance.now();
      await other.publish('c', [{ id: 'from-elsewhere', type: 'Happened', key: 'k', data: {} }]);
      await waitFor('the message published by the other connection', async () => (seen.length ? true : undefined), { timeoutMs: 2_000, intervalMs: 5 });
      expect(seen).toEqual(['from-elsewhere']);
      // the consumers' own wait is a second: the check of the file woke them
      expect(performance.now() - publishedAt).toBeLessThan(500);
      await Promise.all(consumers.map((consumer) => consumer.stop()));
    } finally {
      await bus.close();
      await other.close();
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

describe('embedded bus consumers with a handler for many', () => {
  const open = (dataDir: string) => EmbeddedEventBus.open(embeddedBusFile(dataDir), { ...defaultEmbeddedBusSettings, pollIntervalMs: 10, retry: { initialDelayMs: 10, maxDelayMs: 40 } });
  const happened = (id: string) => ({ id, type: 'Happened', key: 'k', data: { id } });

  it('get a page of messages in one call, without the ones the group already processed or a second copy of one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-bus-'));
    const bus = open(dataDir);
    try {
      const one: string[] = [];
      const first = await bus.subscribe({ group: 'g', topics: ['t'] }, async (message) => void one.push(message.id));
      await bus.publish('t', [happened('a')]);
      await waitFor('the first message', async () => (one.length === 1 ? true : undefined), { timeoutMs: 5_000 });
      await first.stop();
      // published again by a relay after a crash, with new ones and a copy of one of them
      await bus.publish('t', [happened('a'), happened('b'), happened('c'), happened('b')]);
      const pages: string[][] = [];
      await bus.subscribe({ group: 'g', topics: ['t'] }, async (message) => void one.push(message.id), async (messages) => void pages.push(messages.map((message) => message.id)));
      await waitFor('the page', async () => (pages.length === 1 ? true : undefined), { timeoutMs: 5_000 });
      expect(pages).toEqual([['b', 'c']]);
      expect(one).toEqual(['a']);
    } finally {
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('hand a page the handler for many failed to the handler for one message at a time, and carry on with pages after it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-bus-'));
    const bus = open(dataDir);
    try {
      const one: string[] = [];
      const pages: string[][] = [];
      await bus.publish('t', [happened('a'), happened('b')]);
      await bus.subscribe(
        { group: 'g', topics: ['t'] },
        async (message) => void one.push(message.id),
        async (messages) => {
          if (pages.push(messages.map((message) => message.id)) === 1) throw new Error('the store refused the page');
        },
      );
      await waitFor('both messages one by one', async () => (one.length === 2 ? true : undefined), { timeoutMs: 5_000 });
      await bus.publish('t', [happened('c')]);
      await waitFor('the next page', async () => (pages.length === 2 ? true : undefined), { timeoutMs: 5_000 });
      expect(one).toEqual(['a', 'b']);
      expect(pages).toEqual([['a', 'b'], ['c']]);
    } finally {
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('embedded bus retention', () => {
  const happened = (id: string) => ({ id, type: 'Happened', key: 'k', data: { id } });
  const rows = (dataDir: string, sql: string) => {
    const db = new Database(embeddedBusFile(dataDir), { readonly: true });
    try {
      return db.prepare(sql).pluck().all();
    } finally {
      db.close();
    }
  };

  it('removes the messages every group of their topic has processed once they are past the retention, with the record of having processed them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-bus-'));
    const bus = EmbeddedEventBus.open(embeddedBusFile(dataDir), { ...defaultEmbeddedBusSettings, pollIntervalMs: 10, retry: { initialDelayMs: 10, maxDelayMs: 20 }, retentionMs: 60_000 });
    try {
      const fast: string[] = [];
      await bus.subscribe({ group: 'fast', topics: ['t'] }, async (message) => void fast.push(message.id));
      // a group that cannot get past b: it holds back what may go
      await bus.subscribe({ group: 'stuck', topics: ['t'], maxAttempts: 1_000 }, async (message) => {
        if (message.id === 'b') throw new Error('not yet');
      });
      const committed = () => rows(dataDir, "SELECT committed FROM consumer_offsets WHERE topic = 't' ORDER BY group_name");
      // a group holds back from its subscription on, before its first commit
      expect(committed()).toEqual([0, 0]);
      await bus.publish('t', [happened('a')]);
      await waitFor('both groups past a', async () => (committed().join() === '1,1' ? true : undefined), { timeoutMs: 5_000 });
      await bus.publish('t', [happened('b'), happened('c')]);
      await waitFor('the fast group past c', async () => (committed().join() === '3,1' ? true : undefined), { timeoutMs: 5_000 });
      await bus.publish('t.dlq', [happened('dead')]);

      expect(await bus.prune()).toBe(0);
      expect(await bus.prune(Date.now() + 61_000)).toBe(1);
      expect(rows(dataDir, "SELECT id FROM messages WHERE topic = 't' ORDER BY seq")).toEqual(['b', 'c']);
      expect(rows(dataDir, 'SELECT id FROM processed_messages ORDER BY group_name, id')).toEqual(['b', 'c']);
      expect(rows(dataDir, "SELECT id FROM messages WHERE topic = 't.dlq'")).toEqual(['dead']);
    } finally {
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('lets a group no process has consumed with for the retention hold nothing back, and one that comes back go on from its offset', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-bus-'));
    const file = embeddedBusFile(dataDir);
    const settings = { ...defaultEmbeddedBusSettings, pollIntervalMs: 10, retentionMs: 60_000 };
    let bus = EmbeddedEventBus.open(file, settings);
    try {
      const seen: string[] = [];
      await bus.subscribe({ group: 'live', topics: ['t'] }, async (message) => void seen.push(message.id));
      // a group a module no longer uses: it processed nothing, and nothing consumes with it now
      await (await bus.subscribe({ group: 'retired', topics: ['t'], maxAttempts: 1_000 }, async () => Promise.reject(new Error('not yet')))).stop();
      await bus.publish('t', [happened('a'), happened('b')]);
      await waitFor('the live group past b', async () => (seen.length === 2 ? true : undefined), { timeoutMs: 5_000 });
      // within the retention of its last consumption it still holds its topic back
      expect(await bus.prune(Date.now() + 30_000)).toBe(0);
      // past it, the messages every live group processed go
      expect(await bus.prune(Date.now() + 61_000)).toBe(2);
      expect(rows(dataDir, "SELECT COUNT(*) FROM messages WHERE topic = 't'")).toEqual([0]);
      await bus.close();

      // a file from before groups were seen: every group counts as seen when it is opened
      const old = new Database(file);
      old.exec(`
        CREATE TABLE offsets_before (group_name TEXT NOT NULL, topic TEXT NOT NULL, committed INTEGER NOT NULL, PRIMARY KEY (group_name, topic));
        INSERT INTO offsets_before SELECT group_name, topic, committed FROM consumer_offsets;
        DROP TABLE consumer_offsets;
        ALTER TABLE offsets_before RENAME TO consumer_offsets;
      `);
      old.close();
      bus = EmbeddedEventBus.open(file, settings);
      expect(rows(dataDir, 'SELECT COUNT(*) FROM consumer_offsets WHERE seen_at IS NOT NULL')).toEqual([2]);
      await bus.publish('t', [happened('c')]);

      // the retired group comes back: it goes on from its offset, a and b gone meanwhile
      const again: string[] = [];
      await bus.subscribe({ group: 'retired', topics: ['t'] }, async (message) => void again.push(message.id));
      await waitFor('the retired group back at c', async () => (again.length === 1 ? true : undefined), { timeoutMs: 5_000 });
      expect(again).toEqual(['c']);
    } finally {
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('removes a backlog larger than one transaction in one pass', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-bus-'));
    const bus = EmbeddedEventBus.open(embeddedBusFile(dataDir), { ...defaultEmbeddedBusSettings, pollIntervalMs: 10, batchSize: 1_000, retentionMs: 1 });
    try {
      let seen = 0;
      await bus.subscribe({ group: 'g', topics: ['t'] }, async () => void seen++);
      await bus.publish('t', Array.from({ length: 4_100 }, (_, index) => happened(`m-${index}`)));
      await waitFor('every message processed and committed', async () => (seen === 4_100 && rows(dataDir, 'SELECT committed FROM consumer_offsets')[0] === 4_100 ? true : undefined), { timeoutMs: 10_000 });
      expect(await bus.prune(Date.now() + 1_000)).toBe(4_100);
      expect(rows(dataDir, 'SELECT COUNT(*) FROM messages')).toEqual([0]);
      expect(rows(dataDir, 'SELECT COUNT(*) FROM processed_messages')).toEqual([0]);
    } finally {
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
