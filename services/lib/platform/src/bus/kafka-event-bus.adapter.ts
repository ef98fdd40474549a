// kafkajs is loaded when a bus connects: a program on the embedded bus never loads it
import type { Consumer as KafkaConsumer, EachMessagePayload, Kafka, Producer } from 'kafkajs';
import { backoffDelay, Pause } from '../eventsourcing/pause';
import { deadLetter } from './dead-letter';
import { deadLetterTopicOf, type BusMessage, type Consumer, type ConsumerOptions, type EventBus, type RetryPolicy } from './event-bus.port';

const DEFAULT_MAX_ATTEMPTS = 5;

export interface KafkaBusSettings {
  retry: RetryPolicy;
  /** how long the group waits for a consumer that stopped heartbeating (a crash) before its partitions move */
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** how long a fetch waits at the broker for new messages */
  maxWaitMs: number;
}

export const defaultKafkaBusSettings: KafkaBusSettings = {
  retry: { initialDelayMs: 200, maxDelayMs: 10_000 },
  sessionTimeoutMs: 30_000,
  heartbeatIntervalMs: 3_000,
  maxWaitMs: 5_000,
};
/** ids remembered per consumer to drop redelivered duplicates; a restart forgets them */
const RECENT_IDS = 10_000;

/**
 * The cluster bus. Messages are keyed (the aggregate's stream), so Kafka's partitioner
 * keeps each key on one partition, in order. Offsets are committed by hand after the
 * handler succeeded or the message was dead-lettered, never before.
 */
export class KafkaEventBus implements EventBus {
  private readonly consumers = new Set<KafkaConsumer>();
  private readonly stopping = new Set<Pause>();

  private constructor(
    private readonly kafka: Kafka,
    private readonly producer: Producer,
    private readonly settings: KafkaBusSettings,
  ) {}

  static async connect(brokers: string[], clientId: string, settings: KafkaBusSettings = defaultKafkaBusSettings): Promise<KafkaEventBus> {
    const { Kafka, logLevel } = await import('kafkajs');
    const kafka = new Kafka({ clientId, brokers, logLevel: logLevel.WARN });
    // one request in flight keeps each key in order across retries. Not `idempotent`:
    // kafkajs asks the cluster controller for a producer id, and brokers without one
    // (librdkafka's mock cluster in our tests) refuse it; a retry's duplicate carries the
    // same message id, which consumers drop (the outbox relay can repeat messages anyway).
    const producer = kafka.producer({ maxInFlightRequests: 1 });
    await producer.connect();
    return new KafkaEventBus(kafka, producer, settings);
  }

  async publish(topic: string, messages: BusMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.producer.send({
      topic,
      acks: -1,
      messages: messages.map((message) => ({ key: message.key, value: JSON.stringify(message), headers: { 'packyard-id': message.id, 'packyard-type': message.type } })),
    });
  }

  private async ensureTopics(topics: string[]): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((topic) => !existing.has(topic));
      if (missing.length === 0) return;
      await admin.createTopics({ waitForLeaders: true, topics: missing.map((topic) => ({ topic })) }).catch(async (error: unknown) => {
        // a broker without a controller (librdkafka's mock cluster) refuses CreateTopics but
        // creates topics a metadata request names; one that does neither fails here
        await admin.fetchTopicMetadata({ topics: missing }).catch(() => {
          throw error;
        });
      });
    } finally {
      await admin.disconnect();
    }
  }

  async subscribe(options: ConsumerOptions, handler: (message: BusMessage, topic: string) => Promise<void>): Promise<Consumer> {
    const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    await this.ensureTopics([...options.topics, ...options.topics.map(deadLetterTopicOf)]);
    const backoff = new Pause();
    let stopped = false;
    const recent = new Set<string>();
    const remember = (id: string) => {
      recent.add(id);
      if (recent.size > RECENT_IDS) recent.delete(recent.values().next().value!);
    };

    const eachMessage = (consumer: KafkaConsumer) => async ({ topic, partition, message: record, heartbeat }: EachMessagePayload) => {
      const message = JSON.parse(record.value!.toString()) as BusMessage;
      if (!recent.has(message.id)) {
        for (let attempts = 1; ; attempts++) {
          try {
            await handler(message, topic);
            break;
          } catch (error) {
            if (attempts >= maxAttempts) {
              await this.publish(deadLetterTopicOf(topic), [deadLetter(message, topic, options.group, { failed: true, error, attempts })]);
              break;
            }
            await backoff.for(backoffDelay(attempts, this.settings.retry.initialDelayMs, this.settings.retry.maxDelayMs));
            // leaving without a commit: the next owner of the partition redelivers
            if (stopped) throw new Error('consumer stopping', { cause: error });
            await heartbeat();
          }
        }
        remember(message.id);
      }
      await consumer.commitOffsets([{ topic, partition, offset: (BigInt(record.offset) + 1n).toString() }]);
    };

    let current: KafkaConsumer | undefined;
    let restarting: NodeJS.Timeout | undefined;
    let crashesInARow = 0;
    const startAgain = (why: string) => {
      crashesInARow += 1;
      const delayMs = backoffDelay(crashesInARow, this.settings.retry.initialDelayMs, this.settings.retry.maxDelayMs);
      console.error(`bus consumer ${options.group} stopped (${why}); a new one joins in ${delayMs} ms`);
      restarting = setTimeout(() => void start().catch((error: unknown) => startAgain((error as Error).message)), delayMs);
    };
    const start = async (): Promise<void> => {
      const consumer = this.kafka.consumer({
        groupId: options.group,
        sessionTimeout: this.settings.sessionTimeoutMs,
        heartbeatInterval: this.settings.heartbeatIntervalMs,
        maxWaitTimeInMs: this.settings.maxWaitMs,
      });
      current = consumer;
      this.consumers.add(consumer);
      // kafkajs restarts a consumer only after a retriable error; after any other (a broker
      // answering a group request with an error it deems final) it stays disconnected while
      // the process looks healthy, and the module would hear nothing more: start a new one
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (payload.restart || stopped) return;
        this.consumers.delete(consumer);
        startAgain(payload.error.message);
      });
      // the group took this consumer back: later crashes start counting again
      consumer.on(consumer.events.GROUP_JOIN, () => (crashesInARow = 0));
      const drop = async () => {
        this.consumers.delete(consumer);
        await consumer.disconnect().catch(() => undefined);
      };
      try {
        await consumer.connect();
        await consumer.subscribe({ topics: options.topics, fromBeginning: true });
      } catch (error) {
        await drop();
        throw error;
      }
      // the group join goes on without the caller: under a rebalance, or while the group
      // waits out the session of a member that crashed, a join takes seconds to minutes,
      // and the module must start and serve meanwhile (its messages wait at their offsets)
      consumer.run({ autoCommit: false, eachMessage: eachMessage(consumer) }).catch((error: unknown) => {
        if (stopped || current !== consumer) return;
        void drop().then(() => startAgain((error as Error).message));
      });
    };
    await start();
    this.stopping.add(backoff);
    return {
      stop: async () => {
        stopped = true;
        clearTimeout(restarting);
        backoff.interrupt();
        this.stopping.delete(backoff);
        if (current) {
          this.consumers.delete(current);
          await current.disconnect();
        }
      },
    };
  }

  async close(): Promise<void> {
    for (const backoff of this.stopping) backoff.interrupt();
    await Promise.all([...this.consumers].map((consumer) => consumer.disconnect()));
    await this.producer.disconnect();
  }
}
