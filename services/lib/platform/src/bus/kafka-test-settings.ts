import { defaultKafkaBusSettings, type KafkaBusSettings } from './kafka-event-bus.adapter';

/** quick retries, quick fetches, and a crashed consumer's partitions move after 6 s (Kafka's smallest session by default) */
export const kafkaTestSettings: KafkaBusSettings = {
  ...defaultKafkaBusSettings,
  retry: { initialDelayMs: 10, maxDelayMs: 40 },
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitMs: 100,
};
