/**
 * A stand-in for the single-node process, for the crash test: it appends events (some of
 * them integration events) as fast as it can, relays them through the outbox onto the
 * embedded bus, and applies them with a deduplicating handler. It prints `ACK <ids>` once
 * an append is acknowledged. Run: node --import tsx outbox-crash.fixture.ts <dataDir> write|drain
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { createEventStore } from '../eventsourcing/event-store.factory';
import type { NewEvent } from '../eventsourcing/event-store.port';
import { openSqlite } from '../eventsourcing/sqlite-database';
import { createReadModelStore } from '../readmodels/read-model-store.factory';
import { createEventBus } from './event-bus.factory';
import { runOutboxRelay } from './outbox-relay';

const [dataDir, mode] = process.argv.slice(2);
const topic = 'packyard.crash.events.v1';

const store = await createEventStore({ kind: 'sqlite', dataDir, module: 'crash' });
const readModels = await createReadModelStore({ kind: 'sqlite', dataDir, module: 'crash' });
const bus = await createEventBus({ kind: 'embedded', dataDir });

// the consumer's own store: the effect and the record of applied ids commit together
const effects = openSqlite(join(dataDir, 'effects.db'), { durable: true });
effects.exec(`
  CREATE TABLE IF NOT EXISTS applied (id TEXT PRIMARY KEY);
  CREATE TABLE IF NOT EXISTS deliveries (id TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS tally (one INTEGER PRIMARY KEY CHECK (one = 1), n INTEGER NOT NULL);
  INSERT OR IGNORE INTO tally VALUES (1, 0);
`);
const markApplied = effects.prepare('INSERT OR IGNORE INTO applied (id) VALUES (?)');
const recordDelivery = effects.prepare('INSERT INTO deliveries (id) VALUES (?)');
const increment = effects.prepare('UPDATE tally SET n = n + 1');
const tally = effects.prepare<[], { n: number }>('SELECT n FROM tally');
const apply = effects.transaction((id: string) => {
  recordDelivery.run(id);
  if (markApplied.run(id).changes === 1) increment.run();
});

await runOutboxRelay({ store, bus, checkpoints: readModels, topic });
await bus.subscribe({ group: 'tally', topics: [topic] }, async (message) => apply(message.id));

const integrationEventsInStore = async () => {
  let count = 0;
  for (let position = 0; ; ) {
    const batch = await store.readAll(position, 1000);
    if (batch.length === 0) return count;
    count += batch.filter((event) => event.integration).length;
    position = batch.at(-1)!.position;
  }
};

if (mode === 'write') {
  for (let i = 0; ; i++) {
    const events: NewEvent[] = Array.from({ length: 1 + (i % 3) }, (_, j) => ({
      id: randomUUID(),
      type: 'ItemChanged',
      data: { i, j },
      integration: j !== 1,
    }));
    await store.append(`item-${i % 5}`, 'ANY', events);
    process.stdout.write(`ACK ${events.map((event) => event.id).join(' ')}\n`);
    await yieldToLoop();
  }
} else {
  const expected = await integrationEventsInStore();
  while (tally.get()!.n < expected) await new Promise((resolve) => setTimeout(resolve, 20));
  process.stdout.write(`DRAINED ${expected}\n`);
  await Promise.all([bus.close(), store.close(), readModels.close()]);
  effects.close();
}
