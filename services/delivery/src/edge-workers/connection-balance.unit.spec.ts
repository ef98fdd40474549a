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
  let reports: number[];
  let balance: ConnectionBalance;
  const socket = () => new EventEmitter() as unknown as Socket;

  beforeEach(() => {
    vi.useFakeTimers();
    served = [];
    givenAway = [];
    reports = [];
    balance = new ConnectionBalance({
      slot: 0,
      registry: new Registry(),
      report: (held) => reports.push(held),
      giveAway: (connection) => void givenAway.push(connection),
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

  it('gives connections away once it holds the slack more than the other, and counts them as the other\'s', () => {
    balance.heard([0, 0]);
    for (let i = 0; i < 10; i++) balance.accepted(socket());
    // kept 2, then every other one: its estimate of the other grows with each it gives
    expect(served).toHaveLength(6);
    expect(givenAway).toHaveLength(4);
  });

  it('keeps a connection the main process could not take', () => {
    const failing = new ConnectionBalance({ slot: 0, registry: new Registry(), report: () => undefined, giveAway: (_connection, kept) => kept(), serve: (connection) => void served.push(connection) });
    failing.heard([0, 0]);
    for (let i = 0; i < 4; i++) failing.accepted(socket());
    expect(served).toHaveLength(4);
    failing.close();
  });

  it('always keeps a connection another worker gave it, however many it holds', () => {
    balance.heard([0, 0]);
    for (let i = 0; i < 5; i++) balance.given(socket());
    expect(served).toHaveLength(5);
    expect(givenAway).toHaveLength(0);
  });

  it('reports a change of two at once, a smaller one after the interval, and a closed connection as one fewer', () => {
    const first = socket();
    balance.accepted(first);
    expect(reports).toEqual([]);
    balance.accepted(socket());
    expect(reports).toEqual([2]);
    balance.accepted(socket());
    expect(reports).toEqual([2]);
    vi.advanceTimersByTime(10);
    expect(reports).toEqual([2, 3]);
    (first as unknown as EventEmitter).emit('close');
    vi.advanceTimersByTime(10);
    expect(reports).toEqual([2, 3, 2]);
  });
});
