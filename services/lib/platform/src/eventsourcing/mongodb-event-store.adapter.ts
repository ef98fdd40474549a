import { MongoClient, MongoServerError, type Collection, type Db } from 'mongodb';
import {
  ConcurrencyError,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
} from './event-store.port';
import { defaultPollingSettings, Subscriptions, type PollingSettings } from './polling-subscription';
import { checkExpectedVersion } from './expected-version';

type EventDocument = Omit<RecordedEvent, 'id'> & { _id: number; eventId: string };

const DUPLICATE_KEY = 11000;

const toRecorded = ({ _id, eventId, ...rest }: EventDocument): RecordedEvent => ({ ...rest, id: eventId });

/**
 * The cluster event store. Each append runs in a transaction that also bumps the global
 * position counter: concurrent writers conflict on the counter document, so positions are
 * handed out and committed strictly in order and a polling subscriber never skips a late
 * commit. Transactions need a replica set (a single-member one is enough).
 */
export class MongoEventStore implements EventStore {
  private readonly subscriptions: Subscriptions;
  private readonly events: Collection<EventDocument>;
  private readonly counters: Collection<{ _id: string; value: number }>;

  private constructor(
    private readonly client: MongoClient,
    db: Db,
    polling: PollingSettings,
  ) {
    this.subscriptions = new Subscriptions(this, polling);
    this.events = db.collection<EventDocument>('events');
    this.counters = db.collection('counters');
  }

  static async connect(url: string, database: string, polling: PollingSettings = defaultPollingSettings): Promise<MongoEventStore> {
    const client = await MongoClient.connect(url);
    const store = new MongoEventStore(client, client.db(database), polling);
    await store.events.createIndex({ stream: 1, version: 1 }, { unique: true });
    return store;
  }

  async append(stream: string, expected: ExpectedVersion, events: NewEvent[]): Promise<AppendResult> {
    const session = this.client.startSession();
    try {
      const result = await session.withTransaction(async () => {
        const [latest] = await this.events.find({ stream }, { session }).sort({ version: -1 }).limit(1).toArray();
        const current = latest?.version ?? 0;
        checkExpectedVersion(stream, expected, current);
        if (events.length === 0) return { nextExpectedVersion: current, lastPosition: await this.lastPosition() };
        const counter = await this.counters.findOneAndUpdate(
          { _id: 'position' },
          { $inc: { value: events.length } },
          { upsert: true, returnDocument: 'after', session },
        );
        const lastPosition = counter!.value;
        const recordedAt = new Date().toISOString();
        await this.events.insertMany(
          events.map((event, index) => ({
            _id: lastPosition - events.length + index + 1,
            position: lastPosition - events.length + index + 1,
            eventId: event.id,
            type: event.type,
            data: event.data ?? null,
            ...(event.integration ? { integration: true } : {}),
            ...(event.metadata ? { metadata: event.metadata } : {}),
            stream,
            version: current + index + 1,
            recordedAt,
          })),
          { session },
        );
        return { nextExpectedVersion: current + events.length, lastPosition };
      });
      if (events.length > 0) this.subscriptions.notify();
      return result;
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) {
        const [latest] = await this.events.find({ stream }).sort({ version: -1 }).limit(1).toArray();
        throw new ConcurrencyError(stream, expected, latest?.version ?? 0);
      }
      throw error;
    } finally {
      await session.endSession();
    }
  }

  async readStream(stream: string, fromVersion = 1): Promise<RecordedEvent[]> {
    const docs = await this.events.find({ stream, version: { $gte: fromVersion } }).sort({ version: 1 }).toArray();
    return docs.map(toRecorded);
  }

  async readAll(fromPosition: number, limit = 1000): Promise<RecordedEvent[]> {
    const docs = await this.events.find({ _id: { $gt: fromPosition } }).sort({ _id: 1 }).limit(limit).toArray();
    return docs.map(toRecorded);
  }

  async lastPosition(): Promise<number> {
    const counter = await this.counters.findOne({ _id: 'position' });
    return counter?.value ?? 0;
  }

  subscribe(...args: Parameters<EventStore['subscribe']>) {
    return this.subscriptions.subscribe(...args);
  }

  subscribeInBatches(...args: Parameters<EventStore['subscribeInBatches']>) {
    return this.subscriptions.subscribeInBatches(...args);
  }

  async close(): Promise<void> {
    await this.subscriptions.stopAll();
    await this.client.close();
  }
}
