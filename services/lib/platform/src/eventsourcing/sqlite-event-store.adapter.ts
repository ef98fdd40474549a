import type Database from 'better-sqlite3';
import { join } from 'node:path';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  ExpectedVersion,
  NewEvent,
  RecordedEvent,
  StreamAppend,
} from './event-store.port';
import { ConcurrencyError } from './event-store.port';
import { checkExpectedVersion } from './expected-version';
import { checkFence, decideLease, LeaseBusyError, leaseDecider, type Lease, type LeaseCommand, type LeaseState, type LeaseStore } from './lease.decider';
import { defaultPollingSettings, Subscriptions, type PollingSettings } from './polling-subscription';
import { openSqlite, WOKEN_POLL_MS, watchOtherWriters } from './sqlite-database';

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
  readonly leases: LeaseStore;
  private readonly subscriptions: Subscriptions;
  private readonly stopWatching: () => void;
  private readonly statements;
  private readonly appendBatch;
  private readonly appendEachBatch;

  constructor(
    private readonly db: Database.Database,
    polling: PollingSettings = defaultPollingSettings,
  ) {
    // appends here wake the subscriptions, appends of another process are seen by one check per interval
    this.subscriptions = new Subscriptions(this, { ...polling, pollIntervalMs: WOKEN_POLL_MS });
    this.stopWatching = watchOtherWriters(db, polling.pollIntervalMs, () => this.subscriptions.notify());
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
      CREATE TABLE IF NOT EXISTS leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
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
      lease: db.prepare<[string], { holder: string; epoch: number; expiresAt: number }>('SELECT holder, epoch, expires_at AS expiresAt FROM leases WHERE name = ?'),
      putLease: db.prepare(
        `INSERT INTO leases (name, holder, epoch, expires_at) VALUES (@name, @holder, @epoch, @expiresAt)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, epoch = excluded.epoch, expires_at = excluded.expires_at`,
      ),
    };
    const leaseState = (name: string): LeaseState => this.statements.lease.get(name) ?? leaseDecider.initialState();
    // read, decide and write in one IMMEDIATE transaction: processes sharing the file take turns
    const changeLease = db.transaction((name: string, command: LeaseCommand): LeaseState => {
      const next = decideLease(leaseState(name), command);
      this.statements.putLease.run({ name, ...next });
      return next;
    });
    const changed = (name: string, command: LeaseCommand): Lease => ({ name, ...changeLease.immediate(name, command) });
    this.leases = {
      acquire: async (name, holder, ttlMs) => {
        try {
          return changed(name, { type: 'Acquire', holder, now: Date.now(), ttlMs });
        } catch (error) {
          if (error instanceof LeaseBusyError) return undefined;
          throw error;
        }
      },
      renew: async (lease, ttlMs) => changed(lease.name, { type: 'Renew', name: lease.name, holder: lease.holder, epoch: lease.epoch, now: Date.now(), ttlMs }),
      release: async (lease) => void changeLease.immediate(lease.name, { type: 'Release', holder: lease.holder, epoch: lease.epoch }),
      read: async (name) => leaseState(name),
    };
    this.appendBatch = db.transaction((stream: string, expected: ExpectedVersion, events: NewEvent[], { fence }: AppendOptions): AppendResult => {
      if (fence) checkFence(fence, leaseState(fence.name));
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
    // each append a savepoint inside the one transaction: a failed check undoes that append alone
    this.appendEachBatch = db.transaction((appends: readonly StreamAppend[]) =>
      appends.map(({ stream, expected, events }): AppendResult | ConcurrencyError => {
        try {
          return this.appendBatch(stream, expected, events, {});
        } catch (error) {
          if (error instanceof ConcurrencyError) return error;
          throw error;
        }
      }),
    );
  }

  static open(file: string, polling?: PollingSettings): SqliteEventStore {
    return new SqliteEventStore(openSqlite(file, { durable: true }), polling);
  }

  async append(stream: string, expected: ExpectedVersion, events: NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    const result = this.appendBatch.immediate(stream, expected, events, options);
    if (events.length > 0) this.subscriptions.notify();
    return result;
  }

  async appendEach(appends: readonly StreamAppend[]): Promise<Array<AppendResult | ConcurrencyError>> {
    const results = this.appendEachBatch.immediate(appends);
    if (appends.some((append, index) => append.events.length > 0 && !(results[index] instanceof ConcurrencyError))) this.subscriptions.notify();
    return results;
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
    this.stopWatching();
    await this.subscriptions.stopAll();
    this.db.close();
  }
}
