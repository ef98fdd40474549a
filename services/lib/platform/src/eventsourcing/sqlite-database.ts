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

/** how long a loop reading a SQLite file waits between polls of its own, when nothing woke it: a wake-up missed costs at most this */
export const WOKEN_POLL_MS = 1_000;

/**
 * Calls `changed` when another connection (another process on the same file) has committed,
 * checking every `intervalMs`. `PRAGMA data_version` changes with every commit of any other
 * connection and never with this connection's own, which wake its readers directly. One
 * such check per file replaces a query per reading loop per interval: the loops over one
 * program's databases (projections, bus consumers) polled about 800 times a second while
 * the program was idle, 3–7% of a core.
 */
export function watchOtherWriters(db: Database.Database, intervalMs: number, changed: () => void): () => void {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let seen = dataVersion.get();
  const timer = setInterval(() => {
    let now: number | undefined;
    try {
      now = dataVersion.get();
    } catch {
      // a file that cannot be read now: the readers' own reads meet it, and report and retry it
      return changed();
    }
    if (now === seen) return;
    seen = now;
    changed();
  }, intervalMs).unref();
  return () => clearInterval(timer);
}
