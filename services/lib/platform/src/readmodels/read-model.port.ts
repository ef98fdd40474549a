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
  /** whether the write was applied (see ReadModelStore.at) */
  upsert(doc: T): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  /** how many documents it deleted */
  deleteMany(filter: Filter): Promise<number>;
}

/** what a projection works on: the collections, not the checkpoints */
export interface ReadModels {
  collection<T extends { id: string }>(name: string): Collection<T>;
}

export interface ReadModelStore extends ReadModels {
  /**
   * The same read models as the projection of the event at log `position` writes them.
   * Every write records the position with the document's id, a deletion included, and a
   * write to an id that already records a later position is skipped: replicas projecting
   * one log into one store then never put an older state of a document over a newer one,
   * whichever of them lags. Writes through `collection` record nothing and always apply
   * (documents kept outside projections).
   */
  at(position: number): ReadModels;
  /**
   * Keeps a find by `field` in `collection` as fast with a million documents as with ten (an
   * index, made once and kept); a find on a field without one reads the whole collection.
   */
  index(collection: string, field: string): Promise<void>;
  /** projection checkpoints live beside the documents so that both change together */
  getCheckpoint(projection: string): Promise<number>;
  setCheckpoint(projection: string, position: number): Promise<void>;
  /** drops every collection and checkpoint of the given projection (for a rebuild) */
  reset(projection: string, collections: string[]): Promise<void>;
  close(): Promise<void>;
}
