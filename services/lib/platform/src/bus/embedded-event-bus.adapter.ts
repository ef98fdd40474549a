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
  /**
   * how long a message is kept once every consumer group of its topic has processed it (Kafka:
   * a topic's retention); a group no process has consumed with for this long holds nothing back
   */
  retentionMs: number;
}

export const defaultEmbeddedBusSettings: EmbeddedBusSettings = {
  pollIntervalMs: 50,
  batchSize: 100,
  retry: { initialDelayMs: 200, maxDelayMs: 10_000 },
  retentionMs: 7 * 24 * 3_600_000,
};

/** how often messages past their retention are removed, and how many of a topic in one transaction (it holds the file's write lock and this thread) */
const PRUNE_EVERY_MS = 10_000;
const PRUNED_AT_ONCE = 2_000;

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
  private readonly pruning: NodeJS.Timeout;
  private readonly pruneTopic;
  private readonly markSeen;
  private pruningPass?: Promise<number>;
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
        seen_at TEXT,
        PRIMARY KEY (group_name, topic)
      );
      CREATE TABLE IF NOT EXISTS processed_messages (
        group_name TEXT NOT NULL,
        id TEXT NOT NULL,
        PRIMARY KEY (group_name, id)
      ) WITHOUT ROWID;
    `);
    // files from before groups were seen: every group counts as seen when this version first opens it
    if (!(db.pragma('table_info(consumer_offsets)') as { name: string }[]).some((column) => column.name === 'seen_at')) {
      db.exec('ALTER TABLE consumer_offsets ADD COLUMN seen_at TEXT');
      db.prepare('UPDATE consumer_offsets SET seen_at = ?').run(new Date().toISOString());
    }
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
      subscribed: db.prepare<[string, string, string]>(
        `INSERT INTO consumer_offsets (group_name, topic, committed, seen_at) VALUES (?, ?, 0, ?)
         ON CONFLICT (group_name, topic) DO UPDATE SET seen_at = excluded.seen_at`,
      ),
      // only a mark older than half the retention is written again: an idle program's passes write nothing
      seen: db.prepare<[string, string, string, string]>('UPDATE consumer_offsets SET seen_at = ? WHERE group_name = ? AND topic = ? AND seen_at < ?'),
      // up to where every group a process consumed with since `before` has processed each topic (null: none has)
      consumedTopics: db.prepare<[string], { topic: string; groups: string; upTo: number | null }>(
        'SELECT topic, json_group_array(group_name) AS groups, MIN(CASE WHEN seen_at >= ? THEN committed END) AS upTo FROM consumer_offsets GROUP BY topic',
      ),
      prunableUpTo: db.prepare<[string, number, string, number], { seq: number | null }>(
        'SELECT MAX(seq) AS seq FROM (SELECT seq FROM messages WHERE topic = ? AND seq <= ? AND published_at < ? ORDER BY seq LIMIT ?)',
      ),
      forgetProcessed: db.prepare('DELETE FROM processed_messages WHERE group_name = ? AND id IN (SELECT id FROM messages WHERE topic = ? AND seq <= ?)'),
      deleteMessages: db.prepare('DELETE FROM messages WHERE topic = ? AND seq <= ?'),
    };
    this.statements = statements;
    this.markSeen = db.transaction((now: string, staleAfter: string, loops: TopicLoop[]) => {
      for (const loop of loops) statements.seen.run(now, loop.group, loop.topic, staleAfter);
    });
    // a message goes with every group's record of having processed it: a copy published again
    // after it (the outbox relay after a crash) comes within seconds, not after the retention
    this.pruneTopic = db.transaction((topic: string, groups: string[], upTo: number) => {
      for (const group of groups) statements.forgetProcessed.run(group, topic, upTo);
      return statements.deleteMessages.run(topic, upTo).changes;
    });
    this.pruning = setInterval(() => {
      // a busy or broken file: the next pass tries again, the consumers report it themselves
      this.prune().catch((error: unknown) => console.error('pruning the embedded bus failed', error));
    }, PRUNE_EVERY_MS);
    this.pruning.unref();
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

  /**
   * Removes the messages every consumer group of their topic has processed, published longer
   * than the retention ago, PRUNED_AT_ONCE at a time with the other work of the process in
   * between, so that it keeps up with the messages arriving; a topic no group consumes (a
   * dead-letter topic) keeps everything. A group no process has consumed with for the
   * retention holds nothing back (as Kafka's retention does not wait for it either): coming
   * back, it goes on from its offset, past what was removed meanwhile. Resolves with how many
   * went. (The timer calls it.)
   */
  prune(now = Date.now()): Promise<number> {
    this.pruningPass ??= this.prunePass(now).finally(() => (this.pruningPass = undefined));
    return this.pruningPass;
  }

  private async prunePass(now: number): Promise<number> {
    const before = new Date(now - this.settings.retentionMs).toISOString();
    // the groups consuming in this process are seen now; one that no process has consumed with
    // since `before` (a module that no longer follows a topic, under a name it no longer uses)
    // would otherwise keep its topic's messages for good
    this.markSeen(new Date(now).toISOString(), new Date(now - this.settings.retentionMs / 2).toISOString(), [...this.loops]);
    let removed = 0;
    for (const { topic, groups, upTo } of this.statements.consumedTopics.all(before)) {
      if (upTo === null) continue;
      const groupNames = JSON.parse(groups) as string[];
      for (;;) {
        const last = this.statements.prunableUpTo.get(topic, upTo, before, PRUNED_AT_ONCE)?.seq;
        if (!last) break;
        removed += this.pruneTopic.immediate(topic, groupNames, last);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return removed;
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
    // a group holds back the retention from the moment it subscribes (see prune), not from its first commit
    this.statements.subscribed.run(group, topic, new Date().toISOString());
    let committed = this.statements.committed.get(group, topic)!.committed;

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

    /** the page's rows this group has not processed: neither recorded as processed nor a second copy of one earlier in the page */
    const unprocessed = (rows: MessageRow[]): Set<MessageRow> => {
      const ids = new Set<string>();
      return new Set(rows.filter((row) => !ids.has(row.id) && ids.add(row.id) && this.statements.processed.get(group, row.id) === undefined));
    };

    /** the page's unprocessed messages given to handleMany at once; false when it failed (nothing counts as handled) */
    const handledTogether = async (fresh: Set<MessageRow>): Promise<boolean> => {
      if (fresh.size === 0) return true;
      try {
        await handleMany!([...fresh].map(toMessage), topic);
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
        const fresh = unprocessed(rows);
        const commitHandled = (deadLetter?: { row: MessageRow; message: BusMessage }) => {
          const rowsToCommit = deadLetter ? [...handled, deadLetter.row] : handled;
          if (rowsToCommit.length === 0) return;
          this.commit(group, topic, rowsToCommit, deadLetter?.message);
          committed = rowsToCommit.at(-1)!.seq;
          handled.length = 0;
        };
        try {
          if (handleMany && rows.length > 0 && (await handledTogether(fresh))) handled.push(...rows);
          else {
            for (const row of rows) {
              if (stopped) break;
              if (fresh.has(row)) {
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
    clearInterval(this.pruning);
    await this.pruningPass;
    this.stopWatching();
    await Promise.all([...this.loops].map((loop) => loop.stop()));
    this.db.close();
  }
}
