// the driver is loaded when a store connects: a program on SQLite never loads it (about 100 ms at each start here)
import type { Collection, Db, MongoClient } from 'mongodb';
import {
  ConcurrencyError,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
} from './event-store.port';
import { defaultPollingSettings, Subscriptions, type PollingSettings } from './polling-subscription';
import { checkExpectedVersion } from './expected-version';
import { decideLease, LeaseBusyError, leaseDecider, LeaseLostError, type Lease, type LeaseCommand, type LeaseState, type LeaseStore } from './lease.decider';

type EventDocument = Omit<RecordedEvent, 'id'> & { _id: number; eventId: string };
type LeaseDocument = LeaseState & { _id: string; fencedAt?: Date };

const DUPLICATE_KEY = 11000;

async function isDuplicateKey(error: unknown): Promise<boolean> {
  const { MongoServerError } = await import('mongodb');
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

/** a lease changed by another replica between our read and our write: decided again on what it wrote */
const LEASE_RACE_ATTEMPTS = 5;

const toRecorded = ({ _id, eventId, ...rest }: EventDocument): RecordedEvent => ({ ...rest, id: eventId });

/**
 * The cluster event store. Each append runs in a transaction that also bumps the global
 * position counter: concurrent writers conflict on the counter document, so positions are
 * handed out and committed strictly in order and a polling subscriber never skips a late
 * commit. Transactions need a replica set (a single-member one is enough).
 */
export class MongoEventStore implements EventStore {
  readonly leases: LeaseStore;
  private readonly subscriptions: Subscriptions;
  private readonly events: Collection<EventDocument>;
  private readonly counters: Collection<{ _id: string; value: number }>;
  private readonly leaseDocuments: Collection<LeaseDocument>;

  private constructor(
    private readonly client: MongoClient,
    db: Db,
    polling: PollingSettings,
  ) {
    this.subscriptions = new Subscriptions(this, polling);
    this.events = db.collection<EventDocument>('events');
    this.counters = db.collection('counters');
    this.leaseDocuments = db.collection<LeaseDocument>('leases');
    this.leases = {
      acquire: async (name, holder, ttlMs) => {
        try {
          return await this.changeLease(name, () => ({ type: 'Acquire', holder, now: Date.now(), ttlMs }));
        } catch (error) {
          if (error instanceof LeaseBusyError) return undefined;
          throw error;
        }
      },
      renew: (lease, ttlMs) => this.changeLease(lease.name, () => ({ type: 'Renew', name: lease.name, holder: lease.holder, epoch: lease.epoch, now: Date.now(), ttlMs })),
      release: async (lease) => void (await this.changeLease(lease.name, () => ({ type: 'Release', holder: lease.holder, epoch: lease.epoch }))),
      read: (name) => this.leaseState(name),
    };
  }

  private async leaseState(name: string): Promise<LeaseState> {
    const doc = await this.leaseDocuments.findOne({ _id: name });
    return doc ? { holder: doc.holder, epoch: doc.epoch, expiresAt: doc.expiresAt } : leaseDecider.initialState();
  }

  /** read, decide, then write only if the lease is still as read (compare-and-set) */
  private async changeLease(name: string, command: () => LeaseCommand): Promise<Lease> {
    for (let attempt = 1; ; attempt++) {
      const doc = await this.leaseDocuments.findOne({ _id: name });
      const state = doc ? { holder: doc.holder, epoch: doc.epoch, expiresAt: doc.expiresAt } : leaseDecider.initialState();
      const next = decideLease(state, command());
      try {
        const written = doc
          ? (await this.leaseDocuments.updateOne({ _id: name, holder: state.holder, epoch: state.epoch, expiresAt: state.expiresAt }, { $set: next })).matchedCount === 1
          : (await this.leaseDocuments.insertOne({ _id: name, ...next }), true);
        if (written) return { name, ...next };
      } catch (error) {
        if (!(await isDuplicateKey(error))) throw error;
      }
      if (attempt >= LEASE_RACE_ATTEMPTS) throw new Error(`Lease ${name} kept changing under us`);
    }
  }

  static async connect(url: string, database: string, polling: PollingSettings = defaultPollingSettings): Promise<MongoEventStore> {
    const { MongoClient } = await import('mongodb');
    const client = await MongoClient.connect(url);
    const store = new MongoEventStore(client, client.db(database), polling);
    await store.events.createIndex({ stream: 1, version: 1 }, { unique: true });
    return store;
  }

  async append(stream: string, expected: ExpectedVersion, events: NewEvent[], { fence }: AppendOptions = {}): Promise<AppendResult> {
    const session = this.client.startSession();
    try {
      const result = await session.withTransaction(async () => {
        if (fence) {
          // a write, not a read: a takeover committed meanwhile conflicts with this transaction instead of passing unseen
          const held = await this.leaseDocuments.updateOne({ _id: fence.name, holder: fence.holder, epoch: fence.epoch }, { $set: { fencedAt: new Date() } }, { session });
          if (held.matchedCount === 0) throw new LeaseLostError(fence.name, fence.epoch, await this.leaseState(fence.name));
        }
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
      if (await isDuplicateKey(error)) {
        const [latest] = await this.events.find({ stream }).sort({ version: -1 }).limit(1).toArray();
        throw new ConcurrencyError(stream, expected, latest?.version ?? 0);
      }
      throw error;
    } finally {
      await session.endSession();
    }
  }

  /** one transaction per append, one after another (a transaction across streams buys nothing here: each is its own sync) */
  async appendEach(appends: readonly StreamAppend[]): Promise<Array<AppendResult | ConcurrencyError>> {
    const results: Array<AppendResult | ConcurrencyError> = [];
    for (const { stream, expected, events } of appends) {
      results.push(
        await this.append(stream, expected, events).catch((error: unknown) => {
          if (error instanceof ConcurrencyError) return error;
          throw error;
        }),
      );
    }
    return results;
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
