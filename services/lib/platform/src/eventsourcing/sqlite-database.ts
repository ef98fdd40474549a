import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Opens a SQLite file in WAL mode. `durable` (event logs, the bus) fsyncs every commit so
 * an acknowledged write survives a power cut, not only a killed process; rebuildable data
 * (read models) skips that cost.
 */
export function openSqlite(file: string, { durable }: { durable: boolean }): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`);
  // several modules of one process may share a file (read models beside events)
  db.pragma('busy_timeout = 5000');
  return db;
}
