/**
 * The read-model port: projections keep documents in named collections. Adapters:
 * SQLite (single node, JSON documents with indexed fields), MongoDB (cluster).
 */
export type Filter = Record<string, string | number | boolean | null>;

export interface FindOptions {
  /** case-insensitive substring match on one field */
  contains?: { field: string; value: string };
  sort?: { field: string; direction: 1 | -1 };
  skip?: number;
  limit?: number;
}

export interface Collection<T extends { id: string }> {
  get(id: string): Promise<T | undefined>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter: Filter, options?: Pick<FindOptions, 'contains'>): Promise<number>;
  upsert(doc: T): Promise<void>;
  delete(id: string): Promise<void>;
  deleteMany(filter: Filter): Promise<number>;
}

export interface ReadModelStore {
  collection<T extends { id: string }>(name: string): Collection<T>;
  /** projection checkpoints live beside the documents so that both change together */
  getCheckpoint(projection: string): Promise<number>;
  setCheckpoint(projection: string, position: number): Promise<void>;
  /** drops every collection and checkpoint of the given projection (for a rebuild) */
  reset(projection: string, collections: string[]): Promise<void>;
  close(): Promise<void>;
}
