import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from './sqlite-database';

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
