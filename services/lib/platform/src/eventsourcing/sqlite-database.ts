import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * The page cache of one connection, KiB: SQLite's own default. better-sqlite3 builds with
 * 16 MB (SQLITE_DEFAULT_CACHE_SIZE=-16000), and a single-node process opens 15 databases
 * whose caches fill as the logs grow: RSS rose ~15 MB a minute in a soak, past 240 MB in
 * the end. Reads past the cache come from the OS's file cache, which the kernel can reclaim.
 */
export const PAGE_CACHE_KIB = 2048;

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
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  return db;
}
