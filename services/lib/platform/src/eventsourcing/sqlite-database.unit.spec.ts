import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, watchOtherWriters } from './sqlite-database';

describe('openSqlite', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'packyard-sqlite-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('bounds every connection’s page cache to SQLite’s 2 MiB, not better-sqlite3’s 16 MB', () => {
    for (const durable of [true, false]) {
      const db = openSqlite(join(dir, `${durable}.db`), { durable });
      try {
        // negative: KiB (positive would count pages)
        expect(db.pragma('cache_size', { simple: true })).toBe(-2048);
      } finally {
        db.close();
      }
    }
  });
});

describe('watchOtherWriters', () => {
  it("calls back after another connection's commit, never after the watched connection's own", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'packyard-sqlite-'));
    const own = openSqlite(join(dir, 'log.db'), { durable: false });
    const other = openSqlite(join(dir, 'log.db'), { durable: false });
    let calls = 0;
    const stop = watchOtherWriters(own, 5, () => calls++);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    try {
      own.exec('CREATE TABLE t (x)');
      own.exec('INSERT INTO t VALUES (1)');
      await settle();
      expect(calls).toBe(0);
      other.exec('INSERT INTO t VALUES (2)');
      await settle();
      expect(calls).toBe(1);
      await settle();
      expect(calls).toBe(1);
    } finally {
      stop();
      own.close();
      other.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('wakes the readers when the file cannot be read, rather than throwing from its timer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'packyard-sqlite-'));
    const db = openSqlite(join(dir, 'log.db'), { durable: false });
    let calls = 0;
    const stop = watchOtherWriters(db, 5, () => calls++);
    try {
      // a closed connection throws on every statement, as a file that cannot be read would
      db.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls).toBeGreaterThan(0);
    } finally {
      stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
