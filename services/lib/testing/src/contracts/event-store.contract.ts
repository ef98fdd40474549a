import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConcurrencyError, type EventStore, type NewEvent, type RecordedEvent } from '@packyard/platform/eventsourcing/event-store.port';
import { LeaseLostError } from '@packyard/platform/eventsourcing/lease.decider';

/** A fresh, empty backing store; `open` may be called again to reopen the same data. */
export interface EventStoreFixture {
  open(): Promise<EventStore>;
  dispose?(): Promise<void>;
}

const event = (type: string, data: unknown = {}, extra: Partial<NewEvent> = {}): NewEvent => ({ id: randomUUID(), type, data, ...extra });

const until = async (check: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** The behaviour every EventStore adapter must show (Emmett's pattern: one suite, every adapter). */
export function eventStoreContract(adapter: string, setup: () => Promise<EventStoreFixture>, options: { skip?: string } = {}) {
  describe.skipIf(options.skip !== undefined)(`EventStore contract: ${adapter}${options.skip ? ` (skipped: ${options.skip})` : ''}`, () => {
    const opened: EventStore[] = [];
    const fixtures: EventStoreFixture[] = [];
    const openStore = async () => {
      const fixture = await setup();
      fixtures.push(fixture);
      const store = await fixture.open();
      opened.push(store);
      return { store, fixture };
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close().catch(() => undefined);
      for (const fixture of fixtures.splice(0)) await fixture.dispose?.();
    });

    it('appends a batch to a new stream and reads it back with versions, positions and flags', async () => {
      const { store } = await openStore();
      const created = event('WorkspaceCreated', { name: 'acme' }, { metadata: { caller: 'u1' } });
      const renamed = event('WorkspaceRenamed', { name: 'acme2' }, { integration: true });
      const result = await store.append('workspace-1', 'NO_STREAM', [created, renamed]);
      expect(result.nextExpectedVersion).toBe(2);

      const events = await store.readStream('workspace-1');
      expect(events.map((e) => [e.id, e.type, e.version, e.stream])).toEqual([
        [created.id, 'WorkspaceCreated', 1, 'workspace-1'],
        [renamed.id, 'WorkspaceRenamed', 2, 'workspace-1'],
      ]);
      expect(events[0].data).toEqual({ name: 'acme' });
      expect(events[0].metadata).toEqual({ caller: 'u1' });
      expect(events[0].integration).toBeFalsy();
      expect(events[1].integration).toBe(true);
      expect(events[1].position).toBe(events[0].position + 1);
      expect(result.lastPosition).toBe(events[1].position);
      expect(Date.parse(events[0].recordedAt)).not.toBeNaN();
    });

    it('rejects an append at a stale version with ConcurrencyError and writes nothing of the batch', async () => {
      const { store } = await openStore();
      await store.append('repository-1', 'NO_STREAM', [event('A'), event('B')]);
      const stale = store.append('repository-1', 1, [event('C'), event('D')]);
      await expect(stale).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(stale).rejects.toMatchObject({ stream: 'repository-1', expected: 1, actual: 2 });
      expect((await store.readStream('repository-1')).map((e) => e.type)).toEqual(['A', 'B']);
      expect(await store.lastPosition()).toBe(2);
    });

    it('refuses NO_STREAM on an existing stream, a version on a missing one, and accepts ANY', async () => {
      const { store } = await openStore();
      await store.append('token-1', 'NO_STREAM', [event('A')]);
      await expect(store.append('token-1', 'NO_STREAM', [event('B')])).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(store.append('token-2', 3, [event('B')])).rejects.toBeInstanceOf(ConcurrencyError);
      await store.append('token-1', 'ANY', [event('C')]);
      await store.append('token-1', 2, [event('D')]);
      expect((await store.readStream('token-1')).map((e) => e.version)).toEqual([1, 2, 3]);
    });

    it('lets exactly one of many concurrent writers at the same version win', async () => {
      const { store } = await openStore();
      await store.append('package-1', 'NO_STREAM', [event('Uploaded')]);
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => store.append('package-1', 1, [event(`Writer${i}`)])));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(ConcurrencyError);
      expect(await store.readStream('package-1')).toHaveLength(2);
    });

    it('appends to several streams together, leaving out only an append whose expected version does not hold', async () => {
      const { store } = await openStore();
      await store.append('inbox-2', 'NO_STREAM', [event('Seen')]);
      const results = await store.appendEach([
        { stream: 'inbox-1', expected: 'NO_STREAM', events: [event('First')] },
        { stream: 'inbox-2', expected: 'NO_STREAM', events: [event('Again')] },
        { stream: 'traffic-1', expected: 'ANY', events: [event('Served'), event('Served')] },
      ]);
      expect(results[0]).toMatchObject({ nextExpectedVersion: 1 });
      expect(results[1]).toBeInstanceOf(ConcurrencyError);
      expect(results[2]).toMatchObject({ nextExpectedVersion: 2 });
      expect((await store.readStream('inbox-2')).map((e) => e.type)).toEqual(['Seen']);
      expect((await store.readAll(0)).map((e) => `${e.stream}@${e.version} ${e.type}`)).toEqual(['inbox-2@1 Seen', 'inbox-1@1 First', 'traffic-1@1 Served', 'traffic-1@2 Served']);
      expect(await store.lastPosition()).toBe(4);
    });

    it('reads all streams in position order from a position, in pages', async () => {
      const { store } = await openStore();
      await store.append('a-1', 'NO_STREAM', [event('A1')]);
      await store.append('b-1', 'NO_STREAM', [event('B1'), event('B2')]);
      await store.append('a-1', 1, [event('A2')]);
      expect((await store.readAll(0)).map((e) => e.type)).toEqual(['A1', 'B1', 'B2', 'A2']);
      expect((await store.readAll(1, 2)).map((e) => e.type)).toEqual(['B1', 'B2']);
      expect(await store.readAll(4)).toEqual([]);
      expect(await store.lastPosition()).toBe(4);
      expect((await store.readStream('a-1', 2)).map((e) => e.type)).toEqual(['A2']);
      expect(await store.readStream('missing-1')).toEqual([]);
    });

    it('keeps acknowledged events across a reopen', async () => {
      const { store, fixture } = await openStore();
      await store.append('user-1', 'NO_STREAM', [event('UserRegistered', { email: 'a@b.c' })]);
      await store.close();
      const reopened = await fixture.open();
      opened.push(reopened);
      expect((await reopened.readStream('user-1')).map((e) => e.data)).toEqual([{ email: 'a@b.c' }]);
      await reopened.append('user-1', 1, [event('EmailChanged')]);
      expect(await reopened.lastPosition()).toBe(2);
    });

    it('subscribes from a checkpoint: past events after it, then new appends, in order', async () => {
      const { store } = await openStore();
      await store.append('s-1', 'NO_STREAM', [event('E1'), event('E2'), event('E3')]);
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribe(1, async (e) => void seen.push(e));
      await until(() => seen.length === 2);
      await store.append('s-2', 'NO_STREAM', [event('E4')]);
      await store.append('s-1', 3, [event('E5')]);
      await until(() => seen.length === 4);
      expect(seen.map((e) => e.type)).toEqual(['E2', 'E3', 'E4', 'E5']);
      await subscription.stop();
      await store.append('s-1', 4, [event('E6')]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(seen).toHaveLength(4);
    });

    it('hands pages of events to a batch subscriber, retrying a failed page whole', async () => {
      const { store } = await openStore();
      await store.append('s-1', 'NO_STREAM', [event('E1'), event('E2'), event('E3')]);
      const pages: string[][] = [];
      let failuresLeft = 1;
      const subscription = store.subscribeInBatches(
        1,
        async (events) => {
          if (failuresLeft-- > 0) throw new Error('bus unavailable');
          pages.push(events.map((e) => e.type));
        },
        { onError: () => undefined },
      );
      await until(() => pages.length === 1);
      await store.append('s-1', 3, [event('E4')]);
      await until(() => pages.length === 2);
      await subscription.stop();
      expect(pages).toEqual([['E2', 'E3'], ['E4']]);
    });

    it('retries a failing subscription handler on the same event without skipping ahead', async () => {
      const { store } = await openStore();
      await store.append('s-1', 'NO_STREAM', [event('E1'), event('E2')]);
      const seen: string[] = [];
      const errors: unknown[] = [];
      let failuresLeft = 2;
      const subscription = store.subscribe(
        0,
        async (e) => {
          if (e.type === 'E1' && failuresLeft-- > 0) throw new Error('projection store down');
          seen.push(e.type);
        },
        { onError: (error) => errors.push(error) },
      );
      await until(() => seen.length === 2);
      await subscription.stop();
      expect(seen).toEqual(['E1', 'E2']);
      expect(errors).toHaveLength(2);
    });

    describe('leases', () => {
      /** two stores on the same data: two replicas sharing it */
      const openTwo = async () => {
        const { store, fixture } = await openStore();
        const other = await fixture.open();
        opened.push(other);
        return [store, other] as const;
      };
      const expired = (ttlMs: number) => new Promise((resolve) => setTimeout(resolve, ttlMs + 20));

      it('gives a lease to one holder at a time, and to another once it expired, with a higher epoch', async () => {
        const [a, b] = await openTwo();
        const first = await a.leases.acquire('publisher-r1', 'replica-a', 150);
        expect(first).toMatchObject({ name: 'publisher-r1', holder: 'replica-a', epoch: 1 });
        expect(await b.leases.acquire('publisher-r1', 'replica-b', 150)).toBeUndefined();
        // another name is another lease
        expect(await b.leases.acquire('publisher-r2', 'replica-b', 150)).toMatchObject({ holder: 'replica-b', epoch: 1 });
        await expired(150);
        const second = await b.leases.acquire('publisher-r1', 'replica-b', 10_000);
        expect(second).toMatchObject({ holder: 'replica-b', epoch: 2 });
        await expect(a.leases.renew(first!, 10_000)).rejects.toBeInstanceOf(LeaseLostError);
        expect(await a.leases.read('publisher-r1')).toMatchObject({ holder: 'replica-b', epoch: 2 });
      });

      it('renews for its holder, and a release frees it at once without lowering the epoch', async () => {
        const [a, b] = await openTwo();
        const lease = await a.leases.acquire('publisher-r1', 'replica-a', 150);
        const renewed = await a.leases.renew(lease!, 10_000);
        expect(renewed.epoch).toBe(1);
        await expired(150);
        expect(await b.leases.acquire('publisher-r1', 'replica-b', 10_000)).toBeUndefined();
        await a.leases.release(renewed);
        expect(await b.leases.acquire('publisher-r1', 'replica-b', 10_000)).toMatchObject({ holder: 'replica-b', epoch: 2 });
        // a late release by the former holder gives nothing of the new holder's away
        await a.leases.release(renewed);
        expect(await a.leases.acquire('publisher-r1', 'replica-a', 10_000)).toBeUndefined();
      });

      it('lets exactly one of many concurrent takers win a free lease', async () => {
        const [a, b] = await openTwo();
        const taken = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).leases.acquire('publisher-r1', `replica-${i}`, 10_000)));
        expect(taken.filter(Boolean)).toHaveLength(1);
        expect(taken.find(Boolean)!.epoch).toBe(1);
      });

      it('refuses an append fenced by a lease taken over since, writing nothing, and takes the new holder\'s', async () => {
        const [a, b] = await openTwo();
        const old = await a.leases.acquire('publisher-r1', 'replica-a', 100);
        await a.append('publication-r1', 'NO_STREAM', [event('IndexBuilt')], { fence: old! });
        await expired(100);
        const current = await b.leases.acquire('publisher-r1', 'replica-b', 10_000);
        const stale = a.append('publication-r1', 1, [event('IndexSigned')], { fence: old! });
        await expect(stale).rejects.toBeInstanceOf(LeaseLostError);
        await expect(stale).rejects.toMatchObject({ lease: 'publisher-r1', epoch: 1, current: { holder: 'replica-b', epoch: 2 } });
        expect((await b.readStream('publication-r1')).map((e) => e.type)).toEqual(['IndexBuilt']);
        await b.append('publication-r1', 1, [event('IndexBuilt')], { fence: current! });
        expect(await b.readStream('publication-r1')).toHaveLength(2);
        // never taken, or released: nothing to show
        await expect(a.append('publication-r2', 'NO_STREAM', [event('IndexBuilt')], { fence: { name: 'publisher-r2', holder: 'replica-a', epoch: 1 } })).rejects.toBeInstanceOf(LeaseLostError);
      });

      it('keeps the epoch across a reopen', async () => {
        const { store, fixture } = await openStore();
        const lease = await store.leases.acquire('publisher-r1', 'replica-a', 10_000);
        await store.leases.release(lease!);
        await store.close();
        const reopened = await fixture.open();
        opened.push(reopened);
        expect(await reopened.leases.acquire('publisher-r1', 'replica-a', 10_000)).toMatchObject({ epoch: 2 });
      });
    });
  });
}
