export * from './event-bus.port';
export * from './event-bus.factory';
export * from './outbox-relay';
export { EmbeddedEventBus, embeddedBusFile, defaultEmbeddedBusSettings, type EmbeddedBusSettings } from './embedded-event-bus.adapter';
export { KafkaEventBus } from './kafka-event-bus.adapter';
