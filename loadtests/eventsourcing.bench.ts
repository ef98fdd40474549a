/**
 * Event-sourcing benchmark for the single-node adapters (SQLite event store, embedded bus).
 * Run: npx tsx loadtests/eventsourcing.bench.ts   (DATA_DIR overrides the scratch directory)
 *
 * Prints appends/s (one event per append, and batches of 100), readAll events/s, the bus's
 * end-to-end latency (publish → handler) one message at a time and under a burst, and the
 * module path (append of an integration event → outbox relay → bus → handler). Every
 * commit is fsynced (synchronous=FULL), so the figures include the disk.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@packyard/platform/eventsourcing/sqlite-database';
import { EmbeddedEventBus, embeddedBusFile } from '@packyard/platform/bus/embedded-event-bus.adapter';
import type { BusMessage } from '@packyard/platform/bus/event-bus.port';
import { runOutboxRelay } from '@packyard/platform/bus/outbox-relay';
import type { NewEvent } from '@packyard/platform/eventsourcing/event-store.port';
import { SqliteEventStore, sqliteEventStoreFile } from '@packyard/platform/eventsourcing/sqlite-event-store.adapter';
import { SqliteReadModelStore, sqliteReadModelFile } from '@packyard/platform/readmodels/sqlite-read-model-store.adapter';

const SINGLE_APPENDS = 2_000;
const BATCHES = 200;
const BATCH_SIZE = 100;
const LATENCY_MESSAGES = 1_000;
const BURST_MESSAGES = 10_000;

const dataDir = process.env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'packyard-es-bench-'));
const newEvent = (i: number, integration = false): NewEvent => ({
  id: randomUUID(),
  type: 'PackageUploaded',
  data: { repositoryId: `r${i % 50}`, name: `pkg-${i}`, version: '1.0.0', sha256: 'ab'.repeat(32), size: 12_345 },
  integration,
});

const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000).toLocaleString('en-US');
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const latencyLine = (label: string, samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const fmt = (value: number) => `${value.toFixed(2)} ms`;
  console.log(`${label.padEnd(44)} p50 ${fmt(percentile(sorted, 50))}  p99 ${fmt(percentile(sorted, 99))}  max ${fmt(sorted.at(-1)!)}  (n=${sorted.length})`);
};

/** the disk's ceiling: empty fsynced SQLite commits per second, for reading the figures below */
function probeCommitRate(): void {
  const db = openSqlite(join(dataDir, 'probe.db'), { durable: true });
  db.exec('CREATE TABLE probe (n INTEGER)');
  const insert = db.prepare('INSERT INTO probe (n) VALUES (?)');
  const started = performance.now();
  let commits = 0;
  while (performance.now() - started < 1_000) insert.run(commits++);
  console.log(`${'fsynced SQLite commits (disk ceiling)'.padEnd(44)} ${perSecond(commits, performance.now() - started)} commits/s`);
  db.close();
}

async function benchEventStore(): Promise<void> {
  const store = SqliteEventStore.open(sqliteEventStoreFile(dataDir, 'bench'));
  const versions = new Map<string, number>();
  const appendTo = async (stream: string, events: NewEvent[]) => {
    const version = versions.get(stream) ?? 0;
    const { nextExpectedVersion } = await store.append(stream, version === 0 ? 'NO_STREAM' : version, events);
    versions.set(stream, nextExpectedVersion);
  };

  let started = performance.now();
  for (let i = 0; i < SINGLE_APPENDS; i++) await appendTo(`package-${i % 500}`, [newEvent(i)]);
  const single = performance.now() - started;
  console.log(`${'append, 1 event each'.padEnd(44)} ${perSecond(SINGLE_APPENDS, single)} appends/s`);

  started = performance.now();
  for (let b = 0; b < BATCHES; b++) await appendTo(`repository-${b % 20}`, Array.from({ length: BATCH_SIZE }, (_, i) => newEvent(b * BATCH_SIZE + i)));
  const batched = performance.now() - started;
  console.log(
    `${`append, batches of ${BATCH_SIZE}`.padEnd(44)} ${perSecond(BATCHES, batched)} appends/s = ${perSecond(BATCHES * BATCH_SIZE, batched)} events/s`,
  );

  started = performance.now();
  let read = 0;
  for (let position = 0; ; ) {
    const page = await store.readAll(position, 1000);
    if (page.length === 0) break;
    read += page.length;
    position = page.at(-1)!.position;
  }
  console.log(`${'readAll, pages of 1000'.padEnd(44)} ${perSecond(read, performance.now() - started)} events/s (${read.toLocaleString('en-US')} events)`);
  await store.close();
}

async function benchBus(): Promise<void> {
  const bus = EmbeddedEventBus.open(embeddedBusFile(dataDir));
  const topic = 'packyard.bench.events.v1';
  const arrivals = new Map<string, () => void>();
  const sentAt = new Map<string, number>();
  const burstLatencies: number[] = [];
  await bus.subscribe({ group: 'bench', topics: [topic] }, async (message) => {
    const sent = sentAt.get(message.id);
    if (sent !== undefined) burstLatencies.push(performance.now() - sent);
    arrivals.get(message.id)?.();
  });
  const message = (i: number): BusMessage => ({ id: randomUUID(), type: 'PackageUploaded', key: `package-${i % 100}`, data: { i } });

  // one at a time: the latency a lone upload sees
  const single: number[] = [];
  for (let i = 0; i < LATENCY_MESSAGES; i++) {
    const m = message(i);
    const arrived = new Promise<void>((resolve) => arrivals.set(m.id, resolve));
    const started = performance.now();
    await bus.publish(topic, [m]);
    await arrived;
    single.push(performance.now() - started);
    arrivals.delete(m.id);
  }
  latencyLine('bus publish → handler, one at a time', single);

  // a burst published in batches of 100: latency under load, and throughput
  const burst = Array.from({ length: BURST_MESSAGES }, (_, i) => message(i));
  const last = new Promise<void>((resolve) => arrivals.set(burst.at(-1)!.id, resolve));
  const started = performance.now();
  for (let i = 0; i < burst.length; i += 100) {
    const batch = burst.slice(i, i + 100);
    const now = performance.now();
    for (const m of batch) sentAt.set(m.id, now);
    await bus.publish(topic, batch);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await last;
  const elapsed = performance.now() - started;
  latencyLine(`bus publish → handler, burst of ${BURST_MESSAGES.toLocaleString('en-US')}`, burstLatencies);
  console.log(`${'bus throughput in the burst'.padEnd(44)} ${perSecond(BURST_MESSAGES, elapsed)} messages/s`);
  await bus.close();
}

async function benchOutboxPath(): Promise<void> {
  const store = SqliteEventStore.open(sqliteEventStoreFile(dataDir, 'outbox'));
  const checkpoints = SqliteReadModelStore.open(sqliteReadModelFile(dataDir, 'outbox'));
  const bus = EmbeddedEventBus.open(join(dataDir, 'outbox-bus.db'));
  const topic = 'packyard.outbox.events.v1';
  const arrivals = new Map<string, () => void>();
  await bus.subscribe({ group: 'bench', topics: [topic] }, async (message) => arrivals.get(message.id)?.());
  const relay = await runOutboxRelay({ store, bus, checkpoints, topic });

  const samples: number[] = [];
  for (let i = 0; i < LATENCY_MESSAGES; i++) {
    const event = newEvent(i, true);
    const arrived = new Promise<void>((resolve) => arrivals.set(event.id, resolve));
    const started = performance.now();
    await store.append(`package-${i}`, 'NO_STREAM', [event]);
    await arrived;
    samples.push(performance.now() - started);
    arrivals.delete(event.id);
  }
  latencyLine('append → outbox relay → bus → handler', samples);
  await relay.stop();
  await Promise.all([bus.close(), store.close(), checkpoints.close()]);
}

console.log(`scratch: ${dataDir}`);
try {
  probeCommitRate();
  await benchEventStore();
  await benchBus();
  await benchOutboxPath();
} finally {
  if (!process.env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
}
