import { defaultEmbeddedBusSettings, EmbeddedEventBus, embeddedBusFile, type EmbeddedBusSettings } from './embedded-event-bus.adapter';
import type { EventBus } from './event-bus.port';
import { defaultKafkaBusSettings, KafkaEventBus, type KafkaBusSettings } from './kafka-event-bus.adapter';

export type EventBusOptions = { kind: 'embedded'; dataDir: string; settings?: Partial<EmbeddedBusSettings> } | { kind: 'kafka'; brokers: string[]; clientId: string; settings?: Partial<KafkaBusSettings> };

export async function createEventBus(options: EventBusOptions): Promise<EventBus> {
  switch (options.kind) {
    case 'embedded':
      return EmbeddedEventBus.open(embeddedBusFile(options.dataDir), { ...defaultEmbeddedBusSettings, ...options.settings });
    case 'kafka':
      return KafkaEventBus.connect(options.brokers, options.clientId, { ...defaultKafkaBusSettings, ...options.settings });
  }
}
