import type { EventStore } from './event-store.port';
import { MongoEventStore } from './mongodb-event-store.adapter';
import { SqliteEventStore, sqliteEventStoreFile } from './sqlite-event-store.adapter';

/** Where a module keeps its events and read models: a SQLite file per module, or MongoDB. */
export type StoreOptions = { kind: 'sqlite'; dataDir: string; module: string } | { kind: 'mongodb'; url: string; database: string };

export async function createEventStore(options: StoreOptions): Promise<EventStore> {
  switch (options.kind) {
    case 'sqlite':
      return SqliteEventStore.open(sqliteEventStoreFile(options.dataDir, options.module));
    case 'mongodb':
      return MongoEventStore.connect(options.url, options.database);
  }
}
