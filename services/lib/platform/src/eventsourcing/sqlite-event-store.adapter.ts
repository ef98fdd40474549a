import type Database from 'better-sqlite3';
import { join } from 'node:path';
import type {
  AppendResult,
  EventStore,
  ExpectedVersion,
  NewEvent,
  RecordedEvent,
} from './event-store.port';
import { checkExpectedVersion } from './expected-version';
import { defaultPollingSettings, Subscriptions, type PollingSettings } from './polling-subscription';
import { openSqlite } from './sqlite-database';

interface EventRow {
  position: number;
  id: string;
  stream: string;
  version: number;
  type: string;
  data: string;
  metadata: string | null;
  integration: number;
  recorded_at: string;
}

const toRecorded = (row: EventRow): RecordedEvent => ({
  id: row.id,
  type: row.type,
  data: JSON.parse(row.data),
  ...(row.integration ? { integration: true } : {}),
  ...(row.metadata ? { metadata: JSON.parse(row.metadata) } : {}),
  stream: row.stream,
  version: row.version,
  position: row.position,
  recordedAt: row.recorded_at,
});

export const sqliteEventStoreFile = (dataDir: string, module: string) => join(dataDir, module, 'events.db');

/**
 * The single-node event store: one SQLite file per module. SQLite serialises writers, so
 * positions (AUTOINCREMENT, never reused) become visible strictly in order and polling
 * subscribers cannot skip a late commit.
 */
export class SqliteEventStore implements EventStore {
  private readonly subscriptions: Subscriptions;
  private readonly statements;
  private readonly appendBatch;

  constructor(
    private readonly db: Database.Database,
    polling: PollingSettings = defaultPollingSettings,
  ) {
    this.subscriptions = new Subscriptions(this, polling);
    db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL,
        stream TEXT NOT NULL,
        version INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT,
        integration INTEGER NOT NULL DEFAULT 0,
        recorded_at TEXT NOT NULL,
        UNIQUE (stream, version)
      );
    `);
    this.statements = {
      streamVersion: db.prepare<[string], { version: number | null }>('SELECT MAX(version) AS version FROM events WHERE stream = ?'),
      insert: db.prepare(
        `INSERT INTO events (id, stream, version, type, data, metadata, integration, recorded_at)
         VALUES (@id, @stream, @version, @type, @data, @metadata, @integration, @recordedAt)`,
      ),
      readStream: db.prepare<[string, number], EventRow>('SELECT * FROM events WHERE stream = ? AND version >= ? ORDER BY version'),
      readAll: db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      lastPosition: db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
    };
    this.appendBatch = db.transaction((stream: string, expected: ExpectedVersion, events: NewEvent[]): AppendResult => {
      const current = this.statements.streamVersion.get(stream)?.version ?? 0;
      checkExpectedVersion(stream, expected, current);
      const recordedAt = new Date().toISOString();
      let lastPosition = 0;
      events.forEach((event, index) => {
        const info = this.statements.insert.run({
          id: event.id,
          stream,
          version: current + index + 1,
          type: event.type,
          data: JSON.stringify(event.data ?? null),
          metadata: event.metadata ? JSON.stringify(event.metadata) : null,
          integration: event.integration ? 1 : 0,
          recordedAt,
        });
        lastPosition = Number(info.lastInsertRowid);
      });
      return {
        nextExpectedVersion: current + events.length,
        lastPosition: lastPosition || (this.statements.lastPosition.get()?.position ?? 0),
      };
    });
  }

  static open(file: string, polling?: PollingSettings): SqliteEventStore {
    return new SqliteEventStore(openSqlite(file, { durable: true }), polling);
  }

  async append(stream: string, expected: ExpectedVersion, events: NewEvent[]): Promise<AppendResult> {
    const result = this.appendBatch.immediate(stream, expected, events);
    if (events.length > 0) this.subscriptions.notify();
    return result;
  }

  async readStream(stream: string, fromVersion = 1): Promise<RecordedEvent[]> {
    return this.statements.readStream.all(stream, fromVersion).map(toRecorded);
  }

  async readAll(fromPosition: number, limit = 1000): Promise<RecordedEvent[]> {
    return this.statements.readAll.all(fromPosition, limit).map(toRecorded);
  }

  async lastPosition(): Promise<number> {
    return this.statements.lastPosition.get()?.position ?? 0;
  }

  subscribe(...args: Parameters<EventStore['subscribe']>) {
    return this.subscriptions.subscribe(...args);
  }

  subscribeInBatches(...args: Parameters<EventStore['subscribeInBatches']>) {
    return this.subscriptions.subscribeInBatches(...args);
  }

  async close(): Promise<void> {
    await this.subscriptions.stopAll();
    this.db.close();
  }
}
