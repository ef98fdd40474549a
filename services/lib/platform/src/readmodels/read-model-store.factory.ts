import type { StoreOptions } from '../eventsourcing/event-store.factory';
import { MongoReadModelStore } from './mongodb-read-model-store.adapter';
import type { ReadModelStore } from './read-model.port';
import { SqliteReadModelStore, sqliteReadModelFile } from './sqlite-read-model-store.adapter';

export async function createReadModelStore(options: StoreOptions): Promise<ReadModelStore> {
  switch (options.kind) {
    case 'sqlite':
      return SqliteReadModelStore.open(sqliteReadModelFile(options.dataDir, options.module));
    case 'mongodb':
      return MongoReadModelStore.connect(options.url, options.database);
  }
}
