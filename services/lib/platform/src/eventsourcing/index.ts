export * from './event-store.port';
export * from './decider';
export * from './command-handler';
export * from './event-store.factory';
export { SqliteEventStore, sqliteEventStoreFile } from './sqlite-event-store.adapter';
export { MongoEventStore } from './mongodb-event-store.adapter';
export * from './inbox';
export * from './decode-event';
export * from './lease.decider';
