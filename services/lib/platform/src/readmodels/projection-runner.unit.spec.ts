import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectionSpec } from '@packyard/testing/given-when-then';
import type { NewEvent, RecordedEvent } from '../eventsourcing/event-store.port';
import { SqliteEventStore } from '../eventsourcing/sqlite-event-store.adapter';
import { project, rebuildProjection, runProjection, startProjectionWhere, type Projection } from './projection-runner';
import { SqliteReadModelStore } from './sqlite-read-model-store.adapter';

type Summary = { id: string; name: string; packages: number };

// counts packages per repository; upserts keyed by id make it idempotent only if the
// count is derived from the event, so it records the package names it has seen
const repositorySummary: Projection = {
  name: 'repository-summary',
  collections: ['repository_summaries'],
  async handle(event, readModels) {
    const summaries = readModels.collection<Summary & { seen: string[] }>('repository_summaries');
    const data = event.data as { repositoryId: string; name?: string; package?: string };
    if (event.type === 'RepositoryCreated') await summaries.upsert({ id: data.repositoryId, name: data.name!, packages: 0, seen: [] });
    if (event.type === 'PackageUploaded') {
      const summary = await summaries.get(data.repositoryId);
      if (!summary || summary.seen.includes(event.id)) return;
      await summaries.upsert({ ...summary, packages: summary.packages + 1, seen: [...summary.seen, event.id] });
    }
  },
};

const created = { type: 'RepositoryCreated', data: { repositoryId: 'r1', name: 'debs' } };
const uploaded = (pkg: string) => ({ type: 'PackageUploaded', data: { repositoryId: 'r1', package: pkg } });

describe('repository summary projection (Given/When/Then)', () => {
  it('counts uploads, once each even when delivered twice', () =>
    projectionSpec(repositorySummary)
      .given([created])
      .when([uploaded('a'), uploaded('b')])
      .then(async (readModels) => {
        expect(await readModels.collection<Summary>('repository_summaries').get('r1')).toMatchObject({ name: 'debs', packages: 2 });
      }));
});

// the repository's name as its last rename says, or gone once it is deleted
const repositoryNames: Projection = {
  name: 'repository-names',
  collections: ['repository_names'],
  async handle(event, readModels) {
    const names = readModels.collection<{ id: string; name: string }>('repository_names');
    const data = event.data as { repositoryId: string; name?: string };
    if (event.type === 'RepositoryRenamed') await names.upsert({ id: data.repositoryId, name: data.name! });
    if (event.type === 'RepositoryDeleted') await names.delete(data.repositoryId);
  },
};

describe('project', () => {
  const recorded = (position: number, type: string, data: object): RecordedEvent => ({
    id: `event-${position}`, stream: 'repository-r1', version: position, position, type, data, recordedAt: new Date(0).toISOString(),
  });

  it('given a later event already projected, when an earlier one arrives (a replica that lags), then the later state stays', async () => {
    const readModels = SqliteReadModelStore.open(':memory:');
    const names = readModels.collection<{ id: string; name: string }>('repository_names');
    await project(repositoryNames, recorded(1, 'RepositoryRenamed', { repositoryId: 'r1', name: 'debs' }), readModels);
    await project(repositoryNames, recorded(3, 'RepositoryRenamed', { repositoryId: 'r1', name: 'packages' }), readModels);
    await project(repositoryNames, recorded(2, 'RepositoryRenamed', { repositoryId: 'r1', name: 'old' }), readModels);
    expect(await names.get('r1')).toEqual({ id: 'r1', name: 'packages' });

    await project(repositoryNames, recorded(4, 'RepositoryDeleted', { repositoryId: 'r1' }), readModels);
    await project(repositoryNames, recorded(3, 'RepositoryRenamed', { repositoryId: 'r1', name: 'packages' }), readModels);
    expect(await names.get('r1')).toBeUndefined();
    await readModels.close();
  });
});

describe('runProjection / rebuildProjection', () => {
  let dir: string;
  let store: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  const newEvent = (e: { type: string; data: unknown }): NewEvent => ({ id: crypto.randomUUID(), ...e });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'packyard-proj-'));
    store = SqliteEventStore.open(join(dir, 'events.db'));
    readModels = SqliteReadModelStore.open(join(dir, 'read.db'));
  });
  afterEach(async () => {
    await store.close();
    await readModels.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows the log, resumes from its checkpoint after a restart, and lets callers wait for their writes', async () => {
    await store.append('repository-r1', 'NO_STREAM', [newEvent(created), newEvent(uploaded('a'))]);
    const first = await runProjection({ store, readModels, ...repositorySummary });
    await first.waitFor(2);
    await first.stop();
    expect(await readModels.getCheckpoint('repository-summary')).toBe(2);

    const { lastPosition } = await store.append('repository-r1', 2, [newEvent(uploaded('b'))]);
    const second = await runProjection({ store, readModels, ...repositorySummary });
    await second.waitFor(lastPosition);
    expect((await readModels.collection<Summary>('repository_summaries').get('r1'))?.packages).toBe(2);
    await expect(second.waitFor(99, 50)).rejects.toThrow(/did not reach position 99/);
    await second.stop();
  });

  it('names the event that failed, not the first of its page, and projects the page again once it passes', async () => {
    await store.append('repository-r1', 'NO_STREAM', [newEvent(created), newEvent(uploaded('a')), newEvent(uploaded('b'))]);
    let failures = 1;
    const reported: string[] = [];
    const flaky: Projection = {
      ...repositorySummary,
      async handle(event, models) {
        if (event.position === 3 && failures-- > 0) throw new Error('store unavailable');
        await repositorySummary.handle(event, models);
      },
    };
    const running = await runProjection({ store, readModels, ...flaky }, { onError: (error) => reported.push((error as Error).message) });
    await running.waitFor(3);
    await running.stop();
    expect(reported).toEqual(['projection repository-summary failed on repository-r1@3 (position 3)']);
    expect((await readModels.collection<Summary>('repository_summaries').get('r1'))?.packages).toBe(2);
    expect(await readModels.getCheckpoint('repository-summary')).toBe(3);
  });

  it('rebuilds from zero: a damaged read model comes back as the log says', async () => {
    await store.append('repository-r1', 'NO_STREAM', [newEvent(created), newEvent(uploaded('a')), newEvent(uploaded('b'))]);
    const summaries = readModels.collection<Summary>('repository_summaries');
    await summaries.upsert({ id: 'r1', name: 'wrong', packages: 40 });
    await summaries.upsert({ id: 'ghost', name: 'ghost', packages: 1 });
    await readModels.setCheckpoint('repository-summary', 3);

    expect(await rebuildProjection({ store, readModels, ...repositorySummary }, 2)).toEqual({ events: 3, position: 3 });
    expect((await summaries.find({})).map(({ id, name, packages }) => ({ id, name, packages }))).toEqual([{ id: 'r1', name: 'debs', packages: 2 }]);
    expect(await readModels.getCheckpoint('repository-summary')).toBe(3);
  });
});

describe('a projection new to a module (startProjectionWhere)', () => {
  it('begins where the older projection of the same log is, so its first start does not read the whole log', async () => {
    const readModels = SqliteReadModelStore.open(':memory:');
    await readModels.setCheckpoint('older', 319_547);
    await startProjectionWhere(readModels, 'newer', 'older');
    expect(await readModels.getCheckpoint('newer')).toBe(319_547);
    await readModels.close();
  });

  it('leaves a checkpoint of its own alone, and on a fresh data directory starts from the beginning', async () => {
    const readModels = SqliteReadModelStore.open(':memory:');
    await startProjectionWhere(readModels, 'newer', 'older');
    expect(await readModels.getCheckpoint('newer')).toBe(0);
    await readModels.setCheckpoint('older', 900);
    await readModels.setCheckpoint('newer', 700);
    await startProjectionWhere(readModels, 'newer', 'older');
    expect(await readModels.getCheckpoint('newer')).toBe(700);
    await readModels.close();
  });
});
