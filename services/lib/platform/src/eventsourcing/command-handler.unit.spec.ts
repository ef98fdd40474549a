import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { handleCommand, loadAggregate, type AggregateCache } from './command-handler';
import { assertNever, type Decider } from './decider';
import { ConcurrencyError, type EventStore } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store.adapter';

// A tiny aggregate for the handler: a shelf holding at most two books.
type ShelfEvent = { type: 'BookShelved'; data: { title: string; at: string } } | { type: 'ShelfFull'; data: { at: string } };
type ShelfCommand = { type: 'ShelveBook'; title: string; now: string };
type Shelf = { books: string[]; full: boolean };

class ShelfFullError extends Error {}

const shelf: Decider<Shelf, ShelfCommand, ShelfEvent> = {
  initialState: () => ({ books: [], full: false }),
  decide(command, state) {
    if (state.full) throw new ShelfFullError('The shelf is full');
    const shelved: ShelfEvent = { type: 'BookShelved', data: { title: command.title, at: command.now } };
    return state.books.length === 1 ? [shelved, { type: 'ShelfFull', data: { at: command.now } }] : [shelved];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'BookShelved':
        return { ...state, books: [...state.books, event.data.title] };
      case 'ShelfFull':
        return { ...state, full: true };
      default:
        return assertNever(event);
    }
  },
};

const shelve = (title: string): ShelfCommand => ({ type: 'ShelveBook', title, now: '2025-01-01T00:00:00Z' });

describe('shelf decider (Given/When/Then)', () => {
  const spec = deciderSpec(shelf);
  it('shelves a book on an empty shelf', () =>
    spec.given([]).when(shelve('Dune')).then([{ type: 'BookShelved', data: { title: 'Dune', at: '2025-01-01T00:00:00Z' } }]));
  it('refuses a book once full', () =>
    spec
      .given([
        { type: 'BookShelved', data: { title: 'a', at: '' } },
        { type: 'ShelfFull', data: { at: '' } },
      ])
      .when(shelve('b'))
      .thenThrows(ShelfFullError));
});

describe('handleCommand', () => {
  let dir: string;
  let store: EventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'packyard-cmd-'));
    store = SqliteEventStore.open(join(dir, 'events.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends the decided events and returns the new state, marking integration events', async () => {
    await handleCommand(store, 'shelf-1', shelf, shelve('Dune'));
    const result = await handleCommand(store, 'shelf-1', shelf, shelve('Emma'), {
      isIntegration: (e) => e.type === 'ShelfFull',
      metadata: { caller: 'u1' },
    });
    expect(result.state).toEqual({ books: ['Dune', 'Emma'], full: true });
    expect(result.nextExpectedVersion).toBe(3);
    expect(result.lastPosition).toBe(3);
    const stored = await store.readStream('shelf-1');
    expect(stored.map((e) => [e.type, Boolean(e.integration)])).toEqual([
      ['BookShelved', false],
      ['BookShelved', false],
      ['ShelfFull', true],
    ]);
    expect(stored[2].metadata).toEqual({ caller: 'u1' });
    await expect(handleCommand(store, 'shelf-1', shelf, shelve('Ulysses'))).rejects.toBeInstanceOf(ShelfFullError);
  });

  it('decides again on fresh state after a concurrent writer, never overwriting it', async () => {
    const results = await Promise.allSettled([shelve('a'), shelve('b'), shelve('c')].map((c) => handleCommand(store, 'shelf-2', shelf, c)));
    // two books fit; the third writer re-reads, sees a full shelf and is refused by the rule
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect(results.find((r) => r.status === 'rejected')?.reason).toBeInstanceOf(ShelfFullError);
    expect((await store.readStream('shelf-2')).map((e) => e.type)).toEqual(['BookShelved', 'BookShelved', 'ShelfFull']);
  });

  it('decides on the cached state without reading the stream, and on the stored one after another writer', async () => {
    const cache: AggregateCache<Shelf> = new Map();
    await handleCommand(store, 'shelf-4', shelf, shelve('a'), { cache });
    expect(cache.get('shelf-4')).toEqual({ state: { books: ['a'], full: false }, version: 1 });
    let reads = 0;
    const counting: EventStore = Object.create(store);
    counting.readStream = (...args) => {
      reads += 1;
      return store.readStream(...args);
    };
    // another writer filled the shelf meanwhile: the cached state is stale, the append conflicts
    await store.append('shelf-4', 1, [{ id: crypto.randomUUID(), type: 'BookShelved', data: { title: 'other', at: '' } }, { id: crypto.randomUUID(), type: 'ShelfFull', data: { at: '' } }]);
    await expect(handleCommand(counting, 'shelf-4', shelf, shelve('b'), { cache })).rejects.toBeInstanceOf(ShelfFullError);
    expect(reads).toBe(1);
    expect(cache.has('shelf-4')).toBe(false);
    reads = 0;
    await handleCommand(counting, 'shelf-5', shelf, shelve('c'), { cache });
    await handleCommand(counting, 'shelf-5', shelf, shelve('d'), { cache });
    expect(reads).toBe(1);
    expect((await store.readStream('shelf-5')).map((e) => e.type)).toEqual(['BookShelved', 'BookShelved', 'ShelfFull']);
  });

  it('brings a view read earlier up to date with only the events written after it', async () => {
    await handleCommand(store, 'shelf-6', shelf, shelve('a'));
    const earlier = await loadAggregate(store, 'shelf-6', shelf);
    await store.append('shelf-6', 1, [{ id: crypto.randomUUID(), type: 'BookShelved', data: { title: 'b', at: '' } }]);
    const versionsRead: number[] = [];
    const counting: EventStore = Object.create(store);
    counting.readStream = async (...args) => {
      const events = await store.readStream(...args);
      versionsRead.push(...events.map((event) => event.version));
      return events;
    };
    expect(await loadAggregate(counting, 'shelf-6', shelf, earlier)).toEqual({ state: { books: ['a', 'b'], full: false }, version: 2 });
    expect(versionsRead).toEqual([2]);
    // nothing new: the view as it was
    expect(await loadAggregate(counting, 'shelf-6', shelf, { state: { books: ['a', 'b'], full: false }, version: 2 })).toEqual({ state: { books: ['a', 'b'], full: false }, version: 2 });
  });

  it('gives up with ConcurrencyError after the allowed retries', async () => {
    const racing: EventStore = Object.create(store);
    racing.append = async (stream, _expected, events) => {
      await store.append(stream, 'ANY', [{ id: crypto.randomUUID(), type: 'BookShelved', data: { title: 'x', at: '' } }]);
      return store.append(stream, _expected, events);
    };
    const lonely: Decider<Shelf, ShelfCommand, ShelfEvent> = { ...shelf, decide: (c) => [{ type: 'BookShelved', data: { title: c.title, at: c.now } }] };
    await expect(handleCommand(racing, 'shelf-3', lonely, shelve('a'), { retries: 2 })).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await store.readStream('shelf-3')).toHaveLength(3);
  });
});
