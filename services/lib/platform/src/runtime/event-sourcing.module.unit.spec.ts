import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedEventBus } from '../bus/embedded-event-bus.adapter';
import { SqliteEventStore } from '../eventsourcing/sqlite-event-store.adapter';
import type { Projection } from '../readmodels/projection-runner';
import { SqliteReadModelStore } from '../readmodels/sqlite-read-model-store.adapter';
import { startEventSourcing, type EventSourcing } from './event-sourcing.module';
import { createLogger } from './logger';

describe('startEventSourcing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'packyard-es-'));
  let es: EventSourcing | undefined;
  let bus: EmbeddedEventBus | undefined;
  afterEach(async () => {
    await es?.stop();
    await bus?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets a reader wait for the projection it reads while another is held up (a backlog of traffic to count)', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const counting: Projection = { name: 'counting', collections: ['uses'], handle: () => held };
    const names: Projection = {
      name: 'names',
      collections: ['names'],
      async handle(event, readModels) {
        await readModels.collection('names').upsert({ id: event.stream });
      },
    };
    const events = SqliteEventStore.open(join(dir, 'events.db'));
    bus = EmbeddedEventBus.open(join(dir, 'bus.db'));
    es = await startEventSourcing({
      module: 'test',
      stores: { events, readModels: SqliteReadModelStore.open(join(dir, 'read.db')) },
      bus,
      logger: createLogger('silent'),
      projections: [counting, names],
      fail: (error) => {
        throw error;
      },
    });
    const { lastPosition } = await events.append('thing-1', 'NO_STREAM', [{ id: crypto.randomUUID(), type: 'ThingNamed', data: {} }]);

    await es.caughtUp(lastPosition, 2_000, [names]);
    expect(await es.readModels.collection('names').get('thing-1')).toEqual({ id: 'thing-1' });
    await expect(es.caughtUp(lastPosition, 50)).rejects.toThrow(/counting did not reach/);
    release();
    await es.caughtUp(lastPosition, 2_000);
  });
});
