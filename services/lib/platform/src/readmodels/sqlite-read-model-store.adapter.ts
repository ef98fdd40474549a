import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { openSqlite } from '../eventsourcing/sqlite-database';
import type { Collection, Filter, FindOptions, ReadModels, ReadModelStore } from './read-model.port';

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** JSON path of a document field; refuses anything but plain (dotted) names. */
const pathOf = (field: string) => {
  if (!FIELD.test(field)) throw new Error(`Invalid field name ${JSON.stringify(field)}`);
  return `$.${field}`;
};

type SqlValue = string | number | null;
const sqlValue = (value: Filter[string]): SqlValue => (typeof value === 'boolean' ? Number(value) : value);

/** how long a field found unindexed is taken as such before sqlite_master is asked again (another process may index it) */
const UNINDEXED_RECHECK_MS = 5_000;

export const sqliteReadModelFile = (dataDir: string, module: string) => join(dataDir, module, 'read.db');

/** one index per field, over every collection (which leads it, as every query names one) */
const indexName = (field: string) => `documents_by_${field.replaceAll('.', '_')}`;

/** a find's query: its limit and offset are its last two parameters */
const findSql = (where: { table: string; sql: string }, order: string) => `SELECT doc FROM ${where.table} WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`;

/**
 * Single-node read models: JSON documents in one table, queried with json_extract. A field
 * finds go by is indexed when asked (`index`): an index on its JSON path, which a query
 * uses only when its text names the same path (hence paths written into the SQL, checked
 * by FIELD, rather than bound), and names it (`INDEXED BY`): left to choose, SQLite reads
 * the whole collection by the primary key instead whenever its statistics are missing or
 * were taken while the collection was small, as they are in a store made empty at a start
 * and filled while it runs. An index another process made (the projection's, for an edge
 * worker that only reads) is found in sqlite_master.
 */
export class SqliteReadModelStore implements ReadModelStore {
  private readonly statements = new Map<string, Database.Statement>();
  /** indexed field → its index (see index) */
  private readonly indexes = new Map<string, string>();
  /** field → when sqlite_master last had no index of it */
  private readonly unindexed = new Map<string, number>();
  /**
   * Records `position` for the document's id unless a later one is recorded, and then makes
   * the change; both or neither, in one transaction (another process may write the same
   * document between them). Whether it was applied.
   */
  private readonly writeAt: Database.Transaction<(name: string, id: string, position: number, change: () => void) => boolean>;

  constructor(private readonly db: Database.Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS documents (
        collection TEXT NOT NULL,
        id TEXT NOT NULL,
        doc TEXT NOT NULL,
        PRIMARY KEY (collection, id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL);
      -- the log position of the last event a projection applied to each document id, kept
      -- after the document's deletion too (ReadModelStore.at)
      CREATE TABLE IF NOT EXISTS document_positions (
        collection TEXT NOT NULL,
        id TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (collection, id)
      ) WITHOUT ROWID;
    `);
    this.writeAt = db.transaction((name: string, id: string, position: number, change: () => void) => {
      const claimed = this.statement(
        'INSERT INTO document_positions (collection, id, position) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO UPDATE SET position = excluded.position WHERE excluded.position >= document_positions.position',
      ).run(name, id, position).changes;
      if (claimed) change();
      return claimed > 0;
    });
  }

  static open(file: string): SqliteReadModelStore {
    return new SqliteReadModelStore(openSqlite(file, { durable: false }));
  }

  /** prepared statements are cached by their text; queries differ only in their shape */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  private where(name: string, filter: Filter, contains?: FindOptions['contains']) {
    const clauses = ['collection = ?'];
    const params: SqlValue[] = [name];
    for (const [field, value] of Object.entries(filter)) {
      if (value === null) clauses.push(`json_extract(doc, '${pathOf(field)}') IS NULL`);
      else {
        clauses.push(`json_extract(doc, '${pathOf(field)}') = ?`);
        params.push(sqlValue(value));
      }
    }
    if (contains) {
      clauses.push('instr(lower(json_extract(doc, ?)), lower(?)) > 0');
      params.push(pathOf(contains.field), contains.value);
    }
    // the table, by the index of the first indexed field the filter names
    const index = Object.keys(filter)
      .filter((field) => filter[field] !== null)
      .map((field) => this.indexOf(field))
      .find((name) => name !== undefined);
    return { sql: clauses.join(' AND '), params, table: index ? `documents INDEXED BY "${index}"` : 'documents' };
  }

  /** the index of a field, made here or by another process on the same file */
  private indexOf(field: string): string | undefined {
    const known = this.indexes.get(field);
    if (known !== undefined) return known;
    const checkedAt = this.unindexed.get(field);
    if (checkedAt !== undefined && Date.now() - checkedAt < UNINDEXED_RECHECK_MS) return undefined;
    const name = indexName(field);
    if (!this.statement("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(name)) return void this.unindexed.set(field, Date.now());
    this.indexes.set(field, name);
    return name;
  }

  collection<T extends { id: string }>(name: string): Collection<T> {
    return this.documents<T>(name);
  }

  at(position: number): ReadModels {
    return { collection: (name) => this.documents(name, position) };
  }

  /** the collection, its writes recording `position` when given (ReadModelStore.at) */
  private documents<T extends { id: string }>(name: string, position?: number): Collection<T> {
    const upsert = (doc: T) =>
      this.statement(
        'INSERT INTO documents (collection, id, doc) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO UPDATE SET doc = excluded.doc',
      ).run(name, doc.id, JSON.stringify(doc));
    const remove = (id: string) => this.statement('DELETE FROM documents WHERE collection = ? AND id = ?').run(name, id);
    return {
      get: async (id) => {
        const row = this.statement('SELECT doc FROM documents WHERE collection = ? AND id = ?').get(name, id) as { doc: string } | undefined;
        return row ? (JSON.parse(row.doc) as T) : undefined;
      },
      find: async (filter, options = {}) => {
        const where = this.where(name, filter, options.contains);
        const params = [...where.params];
        let order = 'id';
        if (options.sort) {
          order = `json_extract(doc, ?) ${options.sort.direction === -1 ? 'DESC' : 'ASC'}, id`;
          params.push(pathOf(options.sort.field));
        }
        params.push(options.limit ?? -1, options.skip ?? 0);
        const rows = this.statement(findSql(where, order)).all(...params) as { doc: string }[];
        return rows.map((row) => JSON.parse(row.doc) as T);
      },
      count: async (filter, options = {}) => {
        const where = this.where(name, filter, options.contains);
        const row = this.statement(`SELECT COUNT(*) AS n FROM ${where.table} WHERE ${where.sql}`).get(...where.params) as { n: number };
        return row.n;
      },
      upsert: async (doc) => {
        if (position === undefined) return (upsert(doc), true);
        return this.writeAt.immediate(name, doc.id, position, () => upsert(doc));
      },
      delete: async (id) => {
        if (position === undefined) return (remove(id), true);
        return this.writeAt.immediate(name, id, position, () => remove(id));
      },
      deleteMany: async (filter) => {
        const where = this.where(name, filter);
        if (position === undefined) return this.statement(`DELETE FROM ${where.table} WHERE ${where.sql}`).run(...where.params).changes;
        // the documents whose ids record no later position, each leaving its position behind
        const unlessLater = `${where.sql} AND NOT EXISTS (SELECT 1 FROM document_positions p WHERE p.collection = documents.collection AND p.id = documents.id AND p.position > ?)`;
        return this.db
          .transaction(() => {
            this.statement(
              `INSERT INTO document_positions (collection, id, position) SELECT collection, id, ? FROM ${where.table} WHERE ${unlessLater} ON CONFLICT (collection, id) DO UPDATE SET position = excluded.position`,
            ).run(position, ...where.params, position);
            return this.statement(`DELETE FROM ${where.table} WHERE ${unlessLater}`).run(...where.params, position).changes;
          })
          .immediate();
      },
    };
  }

  async index(_collection: string, field: string): Promise<void> {
    const name = indexName(field);
    this.db.exec(`CREATE INDEX IF NOT EXISTS "${name}" ON documents (collection, json_extract(doc, '${pathOf(field)}'))`);
    this.indexes.set(field, name);
  }

  /** how SQLite runs a find with this filter (diagnostics) */
  explainFind(collection: string, filter: Filter): string {
    const where = this.where(collection, filter);
    const plan = this.db.prepare(`EXPLAIN QUERY PLAN ${findSql(where, 'id')}`).all(...where.params, -1, 0) as { detail: string }[];
    return plan.map((step) => step.detail).join('; ');
  }

  async getCheckpoint(projection: string): Promise<number> {
    const row = this.statement('SELECT position FROM checkpoints WHERE projection = ?').get(projection) as { position: number } | undefined;
    return row?.position ?? 0;
  }

  async setCheckpoint(projection: string, position: number): Promise<void> {
    this.statement(
      'INSERT INTO checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position',
    ).run(projection, position);
  }

  async reset(projection: string, collections: string[]): Promise<void> {
    this.db.transaction(() => {
      for (const name of collections) {
        this.statement('DELETE FROM documents WHERE collection = ?').run(name);
        this.statement('DELETE FROM document_positions WHERE collection = ?').run(name);
      }
      this.statement('DELETE FROM checkpoints WHERE projection = ?').run(projection);
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
