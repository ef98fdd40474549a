/**
 * A module process consuming from Kafka, for the crash test: it completes every message
 * but the one of type `Hang`, whose handler never returns (the process is busy with it
 * when it is killed). Prints `DONE <type>` and `GOT <type>` as it goes.
 * Run: node --import tsx kafka-crash.fixture.ts <brokers> <topic> <group>
 */
import { KafkaEventBus } from './kafka-event-bus.adapter';
import { kafkaTestSettings } from './kafka-test-settings';

const [brokers, topic, group] = process.argv.slice(2);
const bus = await KafkaEventBus.connect(brokers.split(','), `packyard-crash-${process.pid}`, kafkaTestSettings);
await bus.subscribe({ group, topics: [topic] }, async (message) => {
  if (message.type === 'Hang') {
    process.stdout.write(`GOT ${message.type}\n`);
    await new Promise(() => undefined);
  }
  process.stdout.write(`DONE ${message.type}\n`);
});
