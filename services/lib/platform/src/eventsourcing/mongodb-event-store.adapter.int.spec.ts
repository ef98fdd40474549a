import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { eventStoreContract } from '@packyard/testing/contracts/event-store.contract';
import { createEventStore } from './event-store.factory';

const url = process.env.MONGODB_URL;

eventStoreContract(
  'MongoDB',
  async () => {
    const database = `packyard_test_${randomUUID().slice(0, 8)}`;
    return {
      open: () => createEventStore({ kind: 'mongodb', url: url!, database }),
      dispose: async () => {
        const client = await MongoClient.connect(url!);
        await client.db(database).dropDatabase();
        await client.close();
      },
    };
  },
  { skip: url ? undefined : 'MONGODB_URL is not set; needs a MongoDB replica set' },
);
