/**
 * The event bus port for integration events between modules. At-least-once, ordered
 * per key, consumer groups with committed offsets. Adapters: embedded durable log
 * (SQLite, single node), Kafka (cluster). Topics are `packyard.<context>.events.v1`.
 */
export interface BusMessage<D = unknown> {
  /** event id; handlers deduplicate on it */
  id: string;
  type: string;
  /** aggregate id: ordering is guaranteed per key */
  key: string;
  data: D;
  metadata?: Record<string, unknown>;
}

export interface ConsumerOptions {
  group: string;
  topics: string[];
  /** attempts before the message goes to the dead-letter topic `<topic>.dlq` */
  maxAttempts?: number;
}

export interface EventBus {
  publish(topic: string, messages: BusMessage[]): Promise<void>;
  /**
   * Resolves once the consumer is subscribed, without waiting for its group to take it in
   * (messages wait at their offsets meanwhile). Handler errors are retried with backoff; the
   * offset is committed only after success or dead-lettering.
   */
  subscribe(options: ConsumerOptions, handler: (message: BusMessage, topic: string) => Promise<void>, handleMany?: ManyHandler): Promise<Consumer>;
  close(): Promise<void>;
}

/**
 * A consumer's handler for a page of messages at once (its writes one transaction instead
 * of one per message), where the adapter reads pages (the embedded bus; Kafka hands them
 * over one by one). A page it fails is handled again message by message.
 */
export type ManyHandler = (messages: BusMessage[], topic: string) => Promise<void>;

export interface Consumer {
  stop(): Promise<void>;
}

export interface RetryPolicy {
  /** delay before the second attempt; it doubles after each failure */
  initialDelayMs: number;
  maxDelayMs: number;
}

export const topicOf = (context: string) => `packyard.${context}.events.v1`;

/** where a message lands, with `metadata.deadLetter = {topic, group, attempts, error}`, after `maxAttempts` failures */
export const deadLetterTopicOf = (topic: string) => `${topic}.dlq`;
