import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { backoffDelay, Pause } from '../eventsourcing/pause';
import { openSqlite, WOKEN_POLL_MS, watchOtherWriters } from '../eventsourcing/sqlite-database';
import { deadLetter, type DeliveryOutcome } from './dead-letter';
import { deadLetterTopicOf, type BusMessage, type Consumer, type ConsumerOptions, type EventBus, type ManyHandler, type RetryPolicy } from './event-bus.port';

interface MessageRow {
  seq: number;
  topic: string;
  key: string;
  id: string;
  type: string;
  data: string;
  metadata: string | null;
}

export interface EmbeddedBusSettings {
  /** how often the file is checked for another process's publishes (this process's own wake their loops at once) */
  pollIntervalMs: number;
  batchSize: number;
  retry: RetryPolicy;
}

export const defaultEmbeddedBusSettings: EmbeddedBusSettings = {
  pollIntervalMs: 50,
  batchSize: 100,
  retry: { initialDelayMs: 200, maxDelayMs: 10_000 },
};

const DEFAULT_MAX_ATTEMPTS = 5;


export const embeddedBusFile = (dataDir: string) => join(dataDir, 'bus.db');

const toMessage = (row: MessageRow): BusMessage => ({
  id: row.id,
  type: row.type,
  key: row.key,
  data: JSON.parse(row.data),
  ...(row.metadata ? { metadata: JSON.parse(row.metadata) } : {}),
});

interface TopicLoop {
  group: string;
  topic: string;
  idle: Pause;
  stop(): Promise<void>;
}

/**
 * The single-node bus: a durable log in one SQLite file shared by the modules of the
 * process. One loop per (group, topic) processes messages in log order, so order per key
 * holds trivially; the committed offset and the group's record of processed message ids
 * change in the same transaction, so a message published twice (the outbox relay after a
 * crash) reaches a group once, and a crash before the commit redelivers.
 */
export class EmbeddedEventBus implements EventBus {
  private readonly loops = new Set<TopicLoop>();
  private readonly stopWatching: () => void;
  private readonly statements;
  private readonly insertBatch;

  constructor(
    private readonly db: Database.Database,
    private readonly settings: EmbeddedBusSettings = defaultEmbeddedBusSettings,
  ) {
    // publishes here wake their topic's loops, publishes of another process are seen by one check per interval
    this.stopWatching = watchOtherWriters(db, settings.pollIntervalMs, () => {
      for (const loop of this.loops) loop.idle.interrupt();
    });
    db.exec(`
      CREATE TABLE IF NOT EXISTS messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        topic TEXT NOT NULL,
        key TEXT NOT NULL,
        id TEXT NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT,
        published_at TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS messages_by_topic ON messages (topic, seq);
      CREATE TABLE IF NOT EXISTS consumer_offsets (
        group_name TEXT NOT NULL,
        topic TEXT NOT NULL,
        committed INTEGER NOT NULL,
        PRIMARY KEY (group_name, topic)
      );
      CREATE TABLE IF NOT EXISTS processed_messages (
        group_name TEXT NOT NULL,
        id TEXT NOT NULL,
        PRIMARY KEY (group_name, id)
      ) WITHOUT ROWID;
    `);
    const statements = {
      insert: db.prepare(
        `INSERT INTO messages (topic, key, id, type, data, metadata, published_at)
         VALUES (@topic, @key, @id, @type, @data, @metadata, @publishedAt)`,
      ),
      read: db.prepare<[string, number, number], MessageRow>('SELECT * FROM messages WHERE topic = ? AND seq > ? ORDER BY seq LIMIT ?'),
      committed: db.prepare<[string, string], { committed: number }>('SELECT committed FROM consumer_offsets WHERE group_name = ? AND topic = ?'),
      commit: db.prepare(
        `INSERT INTO consumer_offsets (group_name, topic, committed) VALUES (?, ?, ?)
         ON CONFLICT (group_name, topic) DO UPDATE SET committed = excluded.committed`,
      ),
      processed: db.prepare<[string, string], { id: string }>('SELECT id FROM processed_messages WHERE group_name = ? AND id = ?'),
      markProcessed: db.prepare('INSERT OR IGNORE INTO processed_messages (group_name, id) VALUES (?, ?)'),
    };
    this.statements = statements;
    this.insertBatch = db.transaction((topic: string, messages: BusMessage[]) => {
      const publishedAt = new Date().toISOString();
      for (const message of messages)
        statements.insert.run({
          topic,
          key: message.key,
          id: message.id,
          type: message.type,
          data: JSON.stringify(message.data ?? null),
          metadata: message.metadata ? JSON.stringify(message.metadata) : null,
          publishedAt,
        });
    });
  }

  static open(file: string, settings?: EmbeddedBusSettings): EmbeddedEventBus {
    return new EmbeddedEventBus(openSqlite(file, { durable: true }), settings);
  }

  async publish(topic: string, messages: BusMessage[]): Promise<void> {
    if (messages.length === 0) return;
    this.insertBatch.immediate(topic, messages);
    this.wake(topic);
  }

  private wake(topic: string): void {
    for (const loop of this.loops) if (loop.topic === topic) loop.idle.interrupt();
  }

  /**
   * records the group's progress over `rows` (and a dead letter) in one transaction, not
   * synced to disk: a power cut that loses it redelivers those messages, as a crash before
   * the commit does, and handlers deduplicate (the next durable publish syncs it anyway).
   * Each sync stalls every module of the process (~5 ms here, several per upload).
   */
  private commit(group: string, topic: string, rows: MessageRow[], deadLetter?: BusMessage): void {
    const synchronous = this.db.pragma('synchronous', { simple: true }) as number;
    this.db.pragma('synchronous = NORMAL');
    try {
      this.db.transaction(() => {
        if (deadLetter) this.insertBatch(deadLetterTopicOf(topic), [deadLetter]);
        for (const row of rows) this.statements.markProcessed.run(group, row.id);
        this.statements.commit.run(group, topic, rows.at(-1)!.seq);
      })();
    } finally {
      this.db.pragma(`synchronous = ${synchronous}`);
    }
    if (deadLetter) this.wake(deadLetterTopicOf(topic));
  }

  async subscribe(options: ConsumerOptions, handler: (message: BusMessage, topic: string) => Promise<void>, handleMany?: ManyHandler): Promise<Consumer> {
    for (const loop of this.loops)
      if (loop.group === options.group && options.topics.includes(loop.topic))
        throw new Error(`Group ${options.group} already consumes ${loop.topic} on this bus`);
    const loops = options.topics.map((topic) => this.startLoop(options.group, topic, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, handler, handleMany));
    return {
      stop: async () => {
        await Promise.all(loops.map((loop) => loop.stop()));
      },
    };
  }

  private startLoop(group: string, topic: string, maxAttempts: number, handler: (message: BusMessage, topic: string) => Promise<void>, handleMany?: ManyHandler): TopicLoop {
    const idle = new Pause();
    const backoff = new Pause();
    const { retry, batchSize } = this.settings;
    let stopped = false;
    let committed = this.statements.committed.get(group, topic)?.committed ?? 0;

    /** runs the handler until it succeeds or runs out of attempts; undefined when stopped first */
    const attempt = async (message: BusMessage): Promise<DeliveryOutcome | undefined> => {
      for (let attempts = 1; ; attempts++) {
        try {
          await handler(message, topic);
          return { failed: false, attempts };
        } catch (error) {
          if (attempts >= maxAttempts) return { failed: true, error, attempts };
          await backoff.for(backoffDelay(attempts, retry.initialDelayMs, retry.maxDelayMs));
          if (stopped) return undefined;
        }
      }
    };

    /** the page's messages not yet processed, given to handleMany at once; false when it failed (nothing counts as handled) */
    const handledTogether = async (rows: MessageRow[]): Promise<boolean> => {
      const ids = new Set<string>();
      const fresh = rows.filter((row) => !ids.has(row.id) && ids.add(row.id) && this.statements.processed.get(group, row.id) === undefined);
      if (fresh.length === 0) return true;
      try {
        await handleMany!(fresh.map(toMessage), topic);
        return true;
      } catch {
        return false;
      }
    };

    // progress is committed once per page (one durable write, not one per message); a
    // crash before it redelivers the page's handled messages, which handlers deduplicate
    const run = async () => {
      while (!stopped) {
        const rows = this.statements.read.all(topic, committed, batchSize);
        const handled: MessageRow[] = [];
        const handledIds = new Set<string>();
        const commitHandled = (deadLetter?: { row: MessageRow; message: BusMessage }) => {
          const rowsToCommit = deadLetter ? [...handled, deadLetter.row] : handled;
          if (rowsToCommit.length === 0) return;
          this.commit(group, topic, rowsToCommit, deadLetter?.message);
          committed = rowsToCommit.at(-1)!.seq;
          handled.length = 0;
        };
        try {
          if (handleMany && rows.length > 0 && (await handledTogether(rows))) handled.push(...rows);
          else {
            for (const row of rows) {
              if (stopped) break;
              const duplicate = handledIds.has(row.id) || this.statements.processed.get(group, row.id) !== undefined;
              handledIds.add(row.id);
              if (!duplicate) {
                const message = toMessage(row);
                const outcome = await attempt(message);
                if (!outcome) break;
                if (outcome.failed) {
                  commitHandled({ row, message: deadLetter(message, topic, group, outcome) });
                  continue;
                }
              }
              handled.push(row);
            }
          }
        } finally {
          commitHandled();
        }
        if (rows.length < batchSize && !stopped) await idle.for(WOKEN_POLL_MS);
      }
    };

    const done = run().catch((error) => {
      // only a broken database file ends the loop; say so rather than stall silently
      console.error(`bus consumer ${group} on ${topic} stopped`, error);
    });
    const loop: TopicLoop = {
      group,
      topic,
      idle,
      stop: async () => {
        stopped = true;
        idle.interrupt();
        backoff.interrupt();
        this.loops.delete(loop);
        await done;
      },
    };
    this.loops.add(loop);
    return loop;
  }

  async close(): Promise<void> {
    this.stopWatching();
    await Promise.all([...this.loops].map((loop) => loop.stop()));
    this.db.close();
  }
}
