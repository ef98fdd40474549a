import { MongoClient, type Db, type Document, type Filter as MongoFilter } from 'mongodb';
import type { Collection, Filter, FindOptions, ReadModelStore } from './read-model.port';

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const query = (filter: Filter, contains?: FindOptions['contains']): MongoFilter<Document> => ({
  ...filter,
  ...(contains ? { [contains.field]: { $regex: escapeRegex(contains.value), $options: 'i' } } : {}),
});

/** Cluster read models: one MongoDB collection per read-model collection, `_id` = document id. */
export class MongoReadModelStore implements ReadModelStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  static async connect(url: string, database: string): Promise<MongoReadModelStore> {
    const client = await MongoClient.connect(url);
    return new MongoReadModelStore(client, client.db(database));
  }

  collection<T extends { id: string }>(name: string): Collection<T> {
    const documents = this.db.collection<Document>(name);
    const withoutMongoId = ({ _id, ...doc }: Document) => doc as T;
    return {
      get: async (id) => {
        const doc = await documents.findOne({ _id: id as never });
        return doc ? withoutMongoId(doc) : undefined;
      },
      find: async (filter, options = {}) => {
        let cursor = documents.find(query(filter, options.contains));
        cursor = cursor.sort(options.sort ? { [options.sort.field]: options.sort.direction, _id: 1 } : { _id: 1 });
        if (options.skip) cursor = cursor.skip(options.skip);
        if (options.limit !== undefined) cursor = cursor.limit(options.limit);
        return (await cursor.toArray()).map(withoutMongoId);
      },
      count: (filter, options = {}) => documents.countDocuments(query(filter, options.contains)),
      upsert: async (doc) => {
        await documents.replaceOne({ _id: doc.id as never }, doc, { upsert: true });
      },
      delete: async (id) => {
        await documents.deleteOne({ _id: id as never });
      },
      deleteMany: async (filter) => (await documents.deleteMany(query(filter))).deletedCount,
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

  async reset(projection: string, collections: string[]): Promise<void> {
    for (const name of collections) await this.db.collection(name).deleteMany({});
    await this.checkpoints.deleteOne({ _id: projection });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
