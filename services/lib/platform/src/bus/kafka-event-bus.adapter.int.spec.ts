import { randomUUID } from 'node:crypto';
import { eventBusContract } from '@packyard/testing/contracts/event-bus.contract';
import { KafkaEventBus } from './kafka-event-bus.adapter';

const brokers = process.env.KAFKA_BROKERS?.split(',').filter(Boolean);

eventBusContract(
  'Kafka',
  async () => ({
    open: () => KafkaEventBus.connect(brokers!, `packyard-contract-${randomUUID().slice(0, 8)}`, { initialDelayMs: 10, maxDelayMs: 40 }),
  }),
  { skip: brokers?.length ? undefined : 'KAFKA_BROKERS is not set' },
);
