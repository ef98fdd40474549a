export * from './read-model.port';
export * from './projection-runner';
export * from './read-model-store.factory';
export { SqliteReadModelStore, sqliteReadModelFile } from './sqlite-read-model-store.adapter';
export { MongoReadModelStore } from './mongodb-read-model-store.adapter';
