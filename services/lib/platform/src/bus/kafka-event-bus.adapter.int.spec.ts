import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { eventBusContract } from '@packyard/testing/contracts/event-bus.contract';
import { REPO_ROOT } from '@packyard/testing/program';
import { startKafkaBroker } from '@packyard/testing/servers/kafka-broker.server';
import { sharedKafkaBroker } from '@packyard/testing/servers/shared-servers';
import type { BusMessage, Consumer } from './event-bus.port';
import { KafkaEventBus } from './kafka-event-bus.adapter';
import { kafkaTestSettings } from './kafka-test-settings';

// librdkafka's mock cluster (3 brokers), shared by the run: it speaks the Kafka protocol
// with consumer groups and partition assignment, but it is not Apache Kafka (no
// controller: topics are created on first use, not through CreateTopics)
const broker = await sharedKafkaBroker();
const connect = () => KafkaEventBus.connect(broker.server!.brokers, `packyard-contract-${randomUUID().slice(0, 8)}`, kafkaTestSettings);

eventBusContract('Kafka (kafkajs against librdkafka mock cluster)', async () => ({ open: connect }), { skip: broker.skip });

describe.skipIf(broker.skip !== undefined)(`Kafka bus across a crash${broker.skip ? ` (skipped: ${broker.skip})` : ''}`, () => {
  const fixture = fileURLToPath(new URL('./kafka-crash.fixture.ts', import.meta.url));
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const message = (type: string): BusMessage => ({ id: randomUUID(), key: 'repository-1', type, data: { type } });

  it('hands the messages of a consumer killed mid-message to the next one, and none it had finished', async () => {
    const bus = await connect();
    cleanups.push(() => bus.close());
    const [topic, group] = [`packyard.crash-${randomUUID().slice(0, 8)}.events.v1`, `crash-${randomUUID().slice(0, 8)}`];
    await bus.publish(topic, [message('First'), message('Second'), message('Hang'), message('After')]);

    // a process of the module handles First and Second, then is killed -9 inside Hang
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, broker.server!.brokers.join(','), topic, group], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('GOT Hang')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the fixture exited (${code}) before it got to Hang:\n${output}`)));
    });
    child.kill('SIGKILL');
    await exited;
    expect(output).toBe('DONE First\nDONE Second\nGOT Hang\n');

    // another process of the same group takes the partition once the dead one's session ends;
    // it starts at once all the same (a module serves while its group waits out the session)
    const seen: string[] = [];
    const subscribing = performance.now();
    const consumer: Consumer = await bus.subscribe({ group, topics: [topic] }, async (m) => void seen.push(m.type));
    cleanups.push(() => consumer.stop());
    expect(performance.now() - subscribing).toBeLessThan(kafkaTestSettings.sessionTimeoutMs / 2);
    const deadline = Date.now() + 40_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual(['Hang', 'After']);
  }, 60_000);
});

describe.skipIf(broker.skip !== undefined)(`Kafka bus after the broker refuses a group request${broker.skip ? ` (skipped: ${broker.skip})` : ''}`, () => {
  it('a consumer whose group sync was refused with an error kafkajs does not retry joins again and gets the messages', async () => {
    // a broker of its own: the error it is told to give goes to the next SyncGroup of any client
    const own = await startKafkaBroker({ brokers: 1 });
    const bus = await KafkaEventBus.connect(own.brokers, `packyard-crash-${randomUUID().slice(0, 8)}`, kafkaTestSettings);
    let consumer: Consumer | undefined;
    try {
      const [topic, group] = [`packyard.refused-${randomUUID().slice(0, 8)}.events.v1`, `refused-${randomUUID().slice(0, 8)}`];
      await bus.publish(topic, [{ id: randomUUID(), key: 'repository-1', type: 'Before', data: {} }]);
      // SyncGroup (API 14) answered INVALID_REQUEST (42), as the mock cluster did under a rebalance storm in the cluster test
      await own.failNextRequest(14, 42);
      const seen: string[] = [];
      consumer = await bus.subscribe({ group, topics: [topic] }, async (m) => void seen.push(m.type));
      await bus.publish(topic, [{ id: randomUUID(), key: 'repository-1', type: 'After', data: {} }]);
      await expect.poll(() => seen, { timeout: 40_000, interval: 100 }).toEqual(['Before', 'After']);
    } finally {
      await consumer?.stop();
      await bus.close();
      await own.stop();
    }
  }, 60_000);
});
