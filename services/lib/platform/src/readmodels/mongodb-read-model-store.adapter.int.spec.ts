import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { readModelStoreContract } from '@packyard/testing/contracts/read-model-store.contract';
import { createReadModelStore } from './read-model-store.factory';

const url = process.env.MONGODB_URL;

readModelStoreContract(
  'MongoDB',
  async () => {
    const database = `packyard_test_${randomUUID().slice(0, 8)}`;
    return {
      open: () => createReadModelStore({ kind: 'mongodb', url: url!, database }),
      dispose: async () => {
        const client = await MongoClient.connect(url!);
        await client.db(database).dropDatabase();
        await client.close();
      },
    };
  },
  { skip: url ? undefined : 'MONGODB_URL is not set; needs a MongoDB server' },
);
