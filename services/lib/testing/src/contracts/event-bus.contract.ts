import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deadLetterTopicOf, type BusMessage, type Consumer, type EventBus } from '@packyard/platform/bus/event-bus.port';

/**
 * A fresh bus; `open` may be called again to reopen the same log. Retries must back off
 * quickly (tens of milliseconds) so the suite stays fast.
 */
export interface EventBusFixture {
  open(): Promise<EventBus>;
  dispose?(): Promise<void>;
}

const message = (key: string, type: string, id: string = randomUUID()): BusMessage => ({ id, key, type, data: { type }, metadata: { by: 'contract' } });

const until = async (check: () => boolean, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

export interface EventBusContractOptions {
  skip?: string;
  /** why a group cannot have two consumers at once (one process), if it cannot */
  oneConsumerPerGroup?: string;
}

/** The behaviour every EventBus adapter must show. */
export function eventBusContract(adapter: string, setup: () => Promise<EventBusFixture>, options: EventBusContractOptions = {}) {
  describe.skipIf(options.skip !== undefined)(`EventBus contract: ${adapter}${options.skip ? ` (skipped: ${options.skip})` : ''}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    const openBus = async () => {
      const fixture = await setup();
      const buses: EventBus[] = [];
      const open = async () => {
        const bus = await fixture.open();
        buses.push(bus);
        return bus;
      };
      cleanups.push(async () => {
        for (const bus of buses) await bus.close().catch(() => undefined);
        await fixture.dispose?.();
      });
      return { bus: await open(), reopen: open };
    };
    const consumers: Consumer[] = [];
    // group names are unique per test, so a broker shared by a whole run never mixes two tests' groups
    let groupSuffix = '';
    beforeEach(() => {
      groupSuffix = `-${randomUUID().slice(0, 8)}`;
    });
    const consume = async (bus: EventBus, group: string, topics: string[], handler: (m: BusMessage, topic: string) => Promise<void>, maxAttempts?: number) => {
      const consumer = await bus.subscribe({ group: `${group}${groupSuffix}`, topics, maxAttempts }, handler);
      consumers.push(consumer);
      return consumer;
    };
    afterEach(async () => {
      for (const consumer of consumers.splice(0)) await consumer.stop().catch(() => undefined);
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });
    const topic = () => `packyard.contract-${randomUUID().slice(0, 8)}.events.v1`;

    it('delivers every message to each group, in order per key, with its fields intact', async () => {
      const { bus } = await openBus();
      const t = topic();
      const published = [message('repo-1', 'A'), message('repo-2', 'B'), message('repo-1', 'C'), message('repo-2', 'D'), message('repo-1', 'E')];
      await bus.publish(t, published.slice(0, 2));
      const seen: Record<string, BusMessage[]> = { one: [], two: [] };
      await consume(bus, 'one', [t], async (m, from) => {
        expect(from).toBe(t);
        seen.one.push(m);
      });
      await consume(bus, 'two', [t], async (m) => void seen.two.push(m));
      await bus.publish(t, published.slice(2));
      await until(() => seen.one.length === 5 && seen.two.length === 5);
      for (const group of ['one', 'two']) {
        const byKey = (key: string) => seen[group].filter((m) => m.key === key).map((m) => m.type);
        expect(byKey('repo-1')).toEqual(['A', 'C', 'E']);
        expect(byKey('repo-2')).toEqual(['B', 'D']);
      }
      expect(seen.one.find((m) => m.type === 'A')).toEqual(published[0]);
    });

    it('resumes a group at its committed offset after a restart', async () => {
      const { bus, reopen } = await openBus();
      const t = topic();
      await bus.publish(t, [message('k', '1'), message('k', '2')]);
      const first: string[] = [];
      const consumer = await consume(bus, 'billing', [t], async (m) => void first.push(m.type));
      await until(() => first.length === 2);
      await consumer.stop();
      await bus.publish(t, [message('k', '3')]);
      await bus.close();

      const again = await reopen();
      const second: string[] = [];
      await consume(again, 'billing', [t], async (m) => void second.push(m.type));
      await until(() => second.length === 1);
      await settle();
      expect(second).toEqual(['3']);
    });

    it('hands a message published twice with the same id to a group once', async () => {
      const { bus } = await openBus();
      const t = topic();
      const duplicate = message('k', 'Dup');
      await bus.publish(t, [duplicate, message('k', 'Other')]);
      await bus.publish(t, [duplicate, message('k', 'Last')]);
      const seen: string[] = [];
      await consume(bus, 'dedup', [t], async (m) => void seen.push(m.type));
      await until(() => seen.includes('Last'));
      expect(seen).toEqual(['Dup', 'Other', 'Last']);
    });

    it('retries a failing handler without letting later messages of the key overtake', async () => {
      const { bus } = await openBus();
      const t = topic();
      let failures = 2;
      const seen: string[] = [];
      await consume(
        bus,
        'flaky',
        [t],
        async (m) => {
          if (m.type === 'First' && failures-- > 0) throw new Error('downstream unavailable');
          seen.push(m.type);
        },
        5,
      );
      await bus.publish(t, [message('k', 'First'), message('k', 'Second')]);
      await until(() => seen.length === 2);
      expect(seen).toEqual(['First', 'Second']);
    });

    it('moves a message that keeps failing to <topic>.dlq with the error, then carries on', async () => {
      const { bus } = await openBus();
      const t = topic();
      const poison = message('k', 'Poison');
      const attempts: string[] = [];
      const seen: string[] = [];
      await consume(
        bus,
        'strict',
        [t],
        async (m) => {
          if (m.type === 'Poison') {
            attempts.push(m.id);
            throw new TypeError('unparseable payload');
          }
          seen.push(m.type);
        },
        3,
      );
      const dead: BusMessage[] = [];
      await consume(bus, 'dlq-reader', [deadLetterTopicOf(t)], async (m) => void dead.push(m));
      await bus.publish(t, [poison, message('k', 'After')]);
      await until(() => seen.length === 1 && dead.length === 1);
      expect(attempts).toHaveLength(3);
      expect(seen).toEqual(['After']);
      expect(dead[0]).toMatchObject({ id: poison.id, type: 'Poison', key: 'k', data: poison.data });
      expect(dead[0].metadata?.deadLetter).toEqual({ topic: t, group: `strict${groupSuffix}`, attempts: 3, error: 'TypeError: unparseable payload' });
    });

    it('does not commit the offset of a message whose handler never succeeded before a stop', async () => {
      const { bus } = await openBus();
      const t = topic();
      await bus.publish(t, [message('k', 'Pending')]);
      let tried = false;
      const failing = await consume(
        bus,
        'patient',
        [t],
        async () => {
          tried = true;
          throw new Error('still down');
        },
        1_000,
      );
      await until(() => tried);
      await failing.stop();
      const seen: string[] = [];
      await consume(bus, 'patient', [t], async (m) => void seen.push(m.type));
      await until(() => seen.length === 1);
      expect(seen).toEqual(['Pending']);
    });

    it.skipIf(options.oneConsumerPerGroup !== undefined)(
      `shares a group's work with a consumer that joins: it takes over part of the keys, nothing is lost, order per key holds${options.oneConsumerPerGroup ? ` (skipped: ${options.oneConsumerPerGroup})` : ''}`,
      async () => {
        const { bus, reopen } = await openBus();
        const second = await reopen();
        const t = topic();
        const keys = Array.from({ length: 16 }, (_, i) => `repo-${i}`);
        const published: BusMessage[] = [];
        const publishRound = async () => {
          const round = keys.map((key) => message(key, String(published.length / keys.length + 1)));
          published.push(...round);
          await bus.publish(t, round);
        };
        const handled: { by: 'first' | 'second'; message: BusMessage }[] = [];
        await consume(bus, 'shared', [t], async (m) => void handled.push({ by: 'first', message: m }));
        await publishRound();
        await until(() => handled.length === keys.length);

        // a second process of the same module starts: the group rebalances
        await consume(second, 'shared', [t], async (m) => void handled.push({ by: 'second', message: m }));
        while (!handled.some(({ by }) => by === 'second')) {
          if (published.length >= 40 * keys.length) throw new Error('the joining consumer never got a partition');
          await publishRound();
          await settle(500);
        }
        const firstDeliveries = () => [...new Map(handled.map(({ message: m }) => [m.id, m] as const)).values()];
        await until(() => firstDeliveries().length === published.length);
        expect(new Set(handled.filter(({ by }) => by === 'first').map(({ message: m }) => m.key)).size).toBeGreaterThan(0);
        // first deliveries of each key come in publish order, whichever consumer had the key
        // (a message in flight during the rebalance may come a second time: at-least-once)
        for (const key of keys) {
          const order = firstDeliveries().filter((m) => m.key === key).map((m) => Number(m.type));
          expect(order, key).toEqual(order.map((_, i) => i + 1));
        }
      },
      60_000,
    );
  });
}
