import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NewEvent } from '../eventsourcing/event-store.port';
import { SqliteEventStore } from '../eventsourcing/sqlite-event-store.adapter';
import { SqliteReadModelStore } from '../readmodels/sqlite-read-model-store.adapter';
import { EmbeddedEventBus } from './embedded-event-bus.adapter';
import type { BusMessage } from './event-bus.port';
import { runOutboxRelay } from './outbox-relay';

let dir: string;
let store: SqliteEventStore;
let checkpoints: SqliteReadModelStore;
let bus: EmbeddedEventBus;
const topic = 'packyard.artifact.events.v1';
const event = (type: string, integration = false): NewEvent => ({ id: crypto.randomUUID(), type, data: { type }, integration });
const until = async (check: () => boolean) => {
  for (const deadline = Date.now() + 5_000; !check(); await new Promise((r) => setTimeout(r, 10)))
    if (Date.now() > deadline) throw new Error('condition not met in time');
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'packyard-outbox-'));
  store = SqliteEventStore.open(join(dir, 'events.db'));
  checkpoints = SqliteReadModelStore.open(join(dir, 'read.db'));
  bus = EmbeddedEventBus.open(join(dir, 'bus.db'));
});
afterEach(async () => {
  await Promise.all([store.close(), checkpoints.close(), bus.close()]);
  rmSync(dir, { recursive: true, force: true });
});

it('relays only integration events, keyed by stream, and resumes after its checkpoint', async () => {
  const received: BusMessage[] = [];
  await bus.subscribe({ group: 'repository', topics: [topic] }, async (m) => void received.push(m));
  const uploaded = event('PackageUploaded', true);
  await store.append('package-p1', 'NO_STREAM', [event('PackageParsed'), uploaded]);

  const relay = await runOutboxRelay({ store, bus, checkpoints, topic });
  await until(() => received.length === 1);
  expect(received[0]).toMatchObject({ id: uploaded.id, type: 'PackageUploaded', key: 'package-p1', data: { type: 'PackageUploaded' } });
  expect(received[0].metadata).toMatchObject({ stream: 'package-p1', version: 2 });
  await relay.stop();

  await store.append('package-p2', 'NO_STREAM', [event('PackageDeleted', true)]);
  const restarted = await runOutboxRelay({ store, bus, checkpoints, topic });
  await until(() => received.length === 2);
  await new Promise((r) => setTimeout(r, 100));
  await restarted.stop();
  expect(received.map((m) => m.type)).toEqual(['PackageUploaded', 'PackageDeleted']);
  expect(await checkpoints.getCheckpoint('outbox-relay')).toBe(3);
});

it('sends other modules what the module tells them of an event, and keeps the event as recorded', async () => {
  const received: BusMessage[] = [];
  await bus.subscribe({ group: 'delivery', topics: [topic] }, async (m) => void received.push(m));
  const created: NewEvent = { id: crypto.randomUUID(), type: 'RepoTokenCreated', data: { tokenId: 't1', sealedValue: 'sealed', valueHash: 'h1' }, integration: true };
  await store.append('repo_token-t1', 'NO_STREAM', [created]);

  const withoutSealedValue = (recorded: { data: unknown }) => {
    const { sealedValue: _, ...rest } = recorded.data as Record<string, unknown>;
    return rest;
  };
  const relay = await runOutboxRelay({ store, bus, checkpoints, topic, integrationData: withoutSealedValue });
  await until(() => received.length === 1);
  await relay.stop();
  expect(received[0].data).toEqual({ tokenId: 't1', valueHash: 'h1' });
  expect((await store.readStream('repo_token-t1'))[0].data).toEqual({ tokenId: 't1', sealedValue: 'sealed', valueHash: 'h1' });
});
