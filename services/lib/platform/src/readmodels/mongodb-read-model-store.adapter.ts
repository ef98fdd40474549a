// the driver is loaded when a store connects: a program on SQLite never loads it (about 100 ms at each start here)
import type { Db, Document, MongoClient, Filter as MongoFilter } from 'mongodb';
import type { Collection, Filter, FindOptions, ReadModels, ReadModelStore } from './read-model.port';

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** MongoDB's duplicate key error */
const DUPLICATE_KEY = 11000;

/** not the stub a positioned deletion leaves (ReadModelStore.at) */
const LIVE = { _deleted: { $exists: false } };

const query = (filter: Filter, contains?: FindOptions['contains']): MongoFilter<Document> => ({
  ...filter,
  ...LIVE,
  ...(contains ? { [contains.field]: { $regex: escapeRegex(contains.value), $options: 'i' } } : {}),
});

/** Cluster read models: one MongoDB collection per read-model collection, `_id` = document id. */
export class MongoReadModelStore implements ReadModelStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  static async connect(url: string, database: string): Promise<MongoReadModelStore> {
    const { MongoClient } = await import('mongodb');
    const client = await MongoClient.connect(url);
    return new MongoReadModelStore(client, client.db(database));
  }

  collection<T extends { id: string }>(name: string): Collection<T> {
    return this.documents<T>(name);
  }

  at(position: number): ReadModels {
    return { collection: (name) => this.documents(name, position) };
  }

  /** the collection, its writes recording `position` when given (ReadModelStore.at) */
  private documents<T extends { id: string }>(name: string, position?: number): Collection<T> {
    const documents = this.db.collection<Document>(name);
    const withoutStoreFields = ({ _id, _position, _deleted, ...doc }: Document) => doc as T;
    // a write at `position` replaces only a document that records no later one; it writes the
    // position in the document, and a deletion leaves the position behind in a hidden stub
    // (one document, so the check and the write are one atomic operation)
    const unlessLater = { $or: [{ _position: { $exists: false } }, { _position: { $lte: position } }] };
    const replaceUnlessLater = async (id: string, replacement: Document) => {
      for (;;) {
        try {
          await documents.replaceOne({ _id: id as never, ...unlessLater }, { ...replacement, _position: position }, { upsert: true });
          return true;
        } catch (error) {
          if ((error as { code?: number }).code !== DUPLICATE_KEY) throw error;
          // the id is taken: by a document with a later position (skipped), or by an insert
          // that raced this one (replaced on the next try)
          if (await documents.countDocuments({ _id: id as never, _position: { $gt: position } }, { limit: 1 })) return false;
        }
      }
    };
    return {
      get: async (id) => {
        const doc = await documents.findOne({ _id: id as never, ...LIVE });
        return doc ? withoutStoreFields(doc) : undefined;
      },
      find: async (filter, options = {}) => {
        let cursor = documents.find(query(filter, options.contains));
        cursor = cursor.sort(options.sort ? { [options.sort.field]: options.sort.direction, _id: 1 } : { _id: 1 });
        if (options.skip) cursor = cursor.skip(options.skip);
        if (options.limit !== undefined) cursor = cursor.limit(options.limit);
        return (await cursor.toArray()).map(withoutStoreFields);
      },
      count: (filter, options = {}) => documents.countDocuments(query(filter, options.contains)),
      upsert: async (doc) => {
        if (position === undefined) return (await documents.replaceOne({ _id: doc.id as never }, doc, { upsert: true }), true);
        return replaceUnlessLater(doc.id, doc);
      },
      delete: async (id) => {
        if (position === undefined) return (await documents.deleteOne({ _id: id as never }), true);
        return replaceUnlessLater(id, { _deleted: true });
      },
      deleteMany: async (filter) => {
        if (position === undefined) return (await documents.deleteMany(query(filter))).deletedCount;
        const stubs = await documents.updateMany({ ...query(filter), ...unlessLater }, [{ $replaceWith: { _id: '$_id', _position: position, _deleted: true } }]);
        return stubs.modifiedCount;
      },
    };
  }

  private get checkpoints() {
    return this.db.collection<{ _id: string; position: number }>('projection_checkpoints');
  }

  async getCheckpoint(projection: string): Promise<number> {
    return (await this.checkpoints.findOne({ _id: projection }))?.position ?? 0;
  }

  async setCheckpoint(projection: string, position: number): Promise<void> {
    await this.checkpoints.updateOne({ _id: projection }, { $set: { position } }, { upsert: true });
  }

  async index(collection: string, field: string): Promise<void> {
    await this.db.collection(collection).createIndex({ [field]: 1 });
  }

  async reset(projection: string, collections: string[]): Promise<void> {
    for (const name of collections) await this.db.collection(name).deleteMany({});
    await this.checkpoints.deleteOne({ _id: projection });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
