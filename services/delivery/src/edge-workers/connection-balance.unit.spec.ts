import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionBalance, fewestHolding, givesAway } from './connection-balance';

describe('givesAway', () => {
  it('keeps a connection while the worker holds no more than the slack above the fewest elsewhere', () => {
    expect(givesAway(0, 0)).toBe(false);
    expect(givesAway(1, 0)).toBe(false);
    expect(givesAway(2, 0)).toBe(true);
    expect(givesAway(33, 30)).toBe(false);
    expect(givesAway(34, 30)).toBe(true);
  });

  it('allows an eighth of the fewest when that is more, so large crowds are not shuffled for a few connections', () => {
    expect(givesAway(560, 500)).toBe(false);
    expect(givesAway(563, 500)).toBe(true);
  });
});

describe('fewestHolding', () => {
  it('picks the slot holding the fewest, never the one asking, and none that does not listen', () => {
    expect(fewestHolding([5, 3, null, 4], 0)).toBe(1);
    expect(fewestHolding([5, 3, null, 4], 1)).toBe(3);
    expect(fewestHolding([null, 7], 1)).toBeUndefined();
    expect(fewestHolding([], 0)).toBeUndefined();
  });
});

describe('ConnectionBalance (an edge worker in slot 0 of two)', () => {
  let served: Socket[];
  let givenAway: Socket[];
  /** [held, report number] as told to the main process */
  let reports: [number, number][];
  let balance: ConnectionBalance;
  let registry: Registry;
  /** the main process cannot take a connection (its channel is gone) */
  let refused: boolean;
  /** connections given stay on their way (each waits for the one before to be acknowledged) until `unsent` are called */
  let sending: boolean;
  let unsent: (() => void)[];
  const socket = () => new EventEmitter() as unknown as Socket;
  /** the main process's table: the other worker holds `other`; `current`: it holds this worker's last report */
  const table = (other: number, current = true) => ({ held: [0, other], reports: [current ? (reports.at(-1)?.[1] ?? 0) : -1, 0] });
  const turn = () => vi.advanceTimersByTime(1);
  /** hears a table where the other worker holds `other`, then accepts `count` connections at once */
  const burst = (count: number, other = 0) => {
    balance.heard(table(other));
    for (let i = 0; i < count; i++) balance.accepted(socket());
  };
  /** keeps two while the other holds none, hears a table holding its count of them, then accepts a third */
  const acceptThirdOnCurrentTable = () => {
    balance.heard(table(0));
    balance.accepted(socket());
    balance.accepted(socket());
    turn();
    balance.heard(table(0));
    balance.accepted(socket());
  };

  beforeEach(() => {
    vi.useFakeTimers();
    served = [];
    givenAway = [];
    reports = [];
    refused = false;
    sending = false;
    unsent = [];
    registry = new Registry();
    balance = new ConnectionBalance({
      slot: 0,
      registry,
      report: (held, report) => reports.push([held, report]),
      giveAway: (connection, sent, kept) => {
        if (refused) return kept();
        givenAway.push(connection);
        if (!sending) sent();
        else unsent.push(sent);
      },
      serve: (connection) => void served.push(connection),
    });
  });

  afterEach(() => {
    balance.close();
    vi.useRealTimers();
  });

  it('keeps every connection while it knows of no other worker', () => {
    for (let i = 0; i < 10; i++) balance.accepted(socket());
    expect(served).toHaveLength(10);
    expect(givenAway).toHaveLength(0);
  });

  it('given a table that holds its own count, gives a connection away at once when it holds the slack more than the other', () => {
    acceptThirdOnCurrentTable();
    expect([served.length, givenAway.length]).toEqual([2, 1]);
  });

  it('in a burst, holds the connections it would give away unread until a table holds its count, then moves half of what that table shows per table', () => {
    burst(20);
    expect([served.length, givenAway.length]).toEqual([2, 0]);
    turn();
    // the ones waiting count as its own
    expect(reports.at(-1)![0]).toBe(20);
    // the other worker took connections of the same burst meanwhile
    balance.heard(table(9));
    // 20 here and 9 there: five would even them out (15 against 14); three move, two wait for the next table
    expect([served.length, givenAway.length]).toEqual([15, 3]);
    turn();
    expect(reports.at(-1)![0]).toBe(17);
    balance.heard(table(12));
    turn();
    balance.heard(table(13));
    expect([served.length, givenAway.length]).toEqual([15, 5]);
  });

  it('keeps what is left waiting when the next table shows the other worker took more of the burst than the last one said', () => {
    burst(36);
    turn();
    // the other worker's report of its own 30 is still on its way
    balance.heard(table(6));
    expect([served.length, givenAway.length]).toEqual([22, 7]);
    turn();
    balance.heard(table(37));
    // 29 here, 37 there: given all at once on the first table, it would be 22 against 44
    expect([served.length, givenAway.length]).toEqual([29, 7]);
  });

  it('keeps the connections it held back when no table holding its count comes in time, and counts them', async () => {
    burst(8);
    turn();
    balance.heard(table(0, false));
    expect(served).toHaveLength(2);
    vi.advanceTimersByTime(20);
    expect([served.length, givenAway.length]).toEqual([8, 0]);
    expect(await registry.getSingleMetricAsString('packyard_delivery_edge_connections_kept_unbalanced_total')).toMatch(/ 6$/m);
  });

  it('waits twice as long as the slowest recent round trip of a report, up to 200 ms', () => {
    balance.heard(table(0));
    balance.accepted(socket());
    balance.accepted(socket());
    turn();
    // the main process took 60 ms to answer
    vi.advanceTimersByTime(60);
    burst(16, 10);
    turn();
    vi.advanceTimersByTime(110);
    expect([served.length, givenAway.length]).toEqual([12, 0]);
    balance.heard(table(10));
    expect([served.length, givenAway.length]).toEqual([15, 2]);
  });

  it('waits 200 ms at most, however slow the main process was to answer', () => {
    balance.heard(table(0));
    balance.accepted(socket());
    balance.accepted(socket());
    turn();
    vi.advanceTimersByTime(1000);
    burst(22, 20);
    vi.advanceTimersByTime(199);
    expect(served).toHaveLength(23);
    vi.advanceTimersByTime(1);
    expect([served.length, givenAway.length]).toEqual([24, 0]);
  });

  it('gives no more while eight it gave are still on their way: the others wait unread until sends free a place, or their time runs out', () => {
    sending = true;
    burst(60);
    turn();
    balance.heard(table(0));
    // 29 would even them out: half of them would move on this table, eight may be on their way
    expect([served.length, givenAway.length]).toEqual([32, 8]);
    turn();
    balance.heard(table(8));
    expect(givenAway).toHaveLength(8);
    // three are sent: one more goes at once, the next table moves more, never more than eight on their way
    for (const sent of unsent.splice(0, 3)) sent();
    expect(givenAway).toHaveLength(9);
    turn();
    balance.heard(table(9));
    expect(givenAway).toHaveLength(11);
    expect(unsent).toHaveLength(8);
    // no place frees in time: the rest are kept
    vi.advanceTimersByTime(200);
    expect([served.length, givenAway.length]).toEqual([49, 11]);
  });

  it('keeps a connection the main process could not take', () => {
    refused = true;
    acceptThirdOnCurrentTable();
    expect([served.length, givenAway.length]).toEqual([3, 0]);
  });

  it('always keeps a connection another worker gave it, however many it holds', () => {
    balance.heard(table(0));
    for (let i = 0; i < 5; i++) balance.given(socket());
    expect(served).toHaveLength(5);
    expect(givenAway).toHaveLength(0);
  });

  it('reports a change of two on the next turn, a smaller one after the interval, and a closed connection as one fewer', () => {
    const first = socket();
    balance.accepted(first);
    balance.accepted(socket());
    expect(reports).toEqual([]);
    turn();
    expect(reports).toEqual([[2, 1]]);
    balance.accepted(socket());
    turn();
    expect(reports).toEqual([[2, 1]]);
    vi.advanceTimersByTime(10);
    expect(reports).toEqual([[2, 1], [3, 2]]);
    (first as unknown as EventEmitter).emit('close');
    vi.advanceTimersByTime(10);
    expect(reports).toEqual([[2, 1], [3, 2], [2, 3]]);
  });
});
