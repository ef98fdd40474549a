import type { Socket } from 'node:net';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Edge workers share the public port's socket, and the kernel wakes them all for each new
 * connection (libuv has no EPOLLEXCLUSIVE): the worker that happens to be awake accepts on
 * its eight descriptors and takes most of a burst. Sixty-four connections opened at once sat
 * 63/1, 10/54 and 24/40 on two workers, and wrk's p99 followed the busier one (2.1x nginx's,
 * whose workers wake one per connection). So a worker that holds clearly more connections
 * than another gives a newly accepted one, unread, to the main process, which hands it to
 * the worker holding the fewest. A connection moves at most once: a worker keeps every
 * connection it is given.
 *
 * Every move costs a round trip through two event loops (node's IPC sends one descriptor at
 * a time, each acknowledged), so moves must be few: a worker decides only on a table that
 * already holds its own latest count. While the table lags (in a burst), a connection that
 * would be given away waits unread, counted as this worker's, until the table catches up or
 * its time (below) runs out. Given away at once on stale tables, a burst of 1,000 connections split
 * evenly by the kernel moved half of them (both workers believed the other idle), and the
 * last waited 1.2 s for its first answer.
 */

/** a worker gives a connection away only when it holds this many more than the fewest elsewhere … */
const MIN_SLACK = 2;
/** … or this share of the fewest, when that is more: small imbalances are not worth a move */
const SLACK_SHARE = 1 / 8;
/**
 * A worker tells the main process how many connections it holds at once when the count moved
 * by this many since its last report (or by this share of it, when that is more), or while
 * connections wait for a decision …
 */
const REPORT_AT_CHANGE = 2;
const REPORT_AT_SHARE = 1 / 16;
/** … and any smaller change after this long: a steady trickle of connections costs a message per interval */
const REPORT_INTERVAL_MS = 10;
/**
 * A connection waits for the table to catch up at most twice the slowest recent round trip of
 * a report (the main process and this worker share the machine's cores with everything else),
 * but no less than MIN_PARKED_MS and no more than MAX_PARKED_MS; then it is kept. A fixed 20 ms
 * ran out on a loaded machine before a burst's table came back, and a worker kept 62 of 64.
 */
const MIN_PARKED_MS = 20;
const MAX_PARKED_MS = 200;
/** how much of the slowest round trip is remembered at each new one: a slow spell is forgotten over some twenty reports */
const ROUND_TRIP_MEMORY = 0.9;
/**
 * Connections given away and not yet sent: each waits for the one before it to be
 * acknowledged, so the last of a long queue waits longer than it would wait here. Past this
 * many, one that would be given waits unread with the others held back, until sends free a
 * place or its time runs out. A burst of 1,000 connections moved 231–245 of them one after
 * another, and wrk's p99 was 0.58–0.85 s against nginx's 30–45 ms (in two of eight runs).
 */
const MAX_GIVING = 8;

/** what the main process tells every worker: connections held per slot (null: not listening), and the last report it had from each */
export interface HeldTable {
  held: (number | null)[];
  reports: number[];
}

/** whether a worker holding `held` connections gives a new one away, when another holds `fewest` */
export function givesAway(held: number, fewest: number): boolean {
  return held >= fewest + Math.max(MIN_SLACK, Math.ceil(fewest * SLACK_SHARE));
}

/** the slot holding the fewest connections, `except` one (null: a slot not listening); undefined when there is none */
export function fewestHolding(held: readonly (number | null)[], except: number): number | undefined {
  let fewest: number | undefined;
  for (let slot = 0; slot < held.length; slot++) {
    const count = held[slot];
    if (slot === except || count === null) continue;
    if (fewest === undefined || count < held[fewest]!) fewest = slot;
  }
  return fewest;
}

export interface ConnectionBalanceOptions {
  /** this worker's slot (from 0) in the main process's table */
  slot: number;
  /** tells the main process how many connections this worker holds, in its `report`th report */
  report(held: number, report: number): void;
  /** gives the socket to the main process for another worker: `sent` once it is on its way, `kept` when that failed */
  giveAway(socket: Socket, sent: () => void, kept: () => void): void;
  /** serves a connection this worker keeps */
  serve(socket: Socket): void;
  registry: Registry;
}

/** An edge worker's side: which connections it keeps, and what it knows of the others. */
export class ConnectionBalance {
  /** connections kept and open */
  private held = 0;
  /** connections given away and not yet sent */
  private giving = 0;
  /** accepted, unread, waiting for a table that is not behind */
  private readonly parked: Socket[] = [];
  private parkTimer?: NodeJS.Timeout;
  /** what the main process last said every worker holds, plus what this one gave each since */
  private table: (number | null)[] = [];
  /** connections held (and waiting) in this worker's last report, the number of that report, and of the last the table held */
  private reported = 0;
  private reports = 0;
  private echoed = 0;
  private reportTimer?: NodeJS.Timeout;
  private reportSoon?: NodeJS.Immediate;
  /** when the last report went out, and the slowest recent report → table round trip (ms) */
  private reportedAt = 0;
  private slowestRoundTrip = 0;
  private readonly givenAway: Counter;
  private readonly keptUnbalanced: Counter;

  constructor(private readonly options: ConnectionBalanceOptions) {
    const heldNow = () => this.held;
    new Gauge({
      name: 'packyard_delivery_edge_connections',
      help: 'connections this edge worker holds',
      registers: [options.registry],
      collect() {
        this.set(heldNow());
      },
    });
    this.givenAway = new Counter({ name: 'packyard_delivery_edge_connections_given_total', help: 'connections this edge worker accepted and gave to another', registers: [options.registry] });
    this.keptUnbalanced = new Counter({
      name: 'packyard_delivery_edge_connections_kept_unbalanced_total',
      help: 'connections this edge worker would have given to another but kept, because the main process did not answer its report in time',
      registers: [options.registry],
    });
  }

  /** a connection this worker accepted (not read yet): kept, given to the worker holding the fewest, or held back until the table is current */
  accepted(socket: Socket): void {
    if (!this.wouldGive(this.held + this.parked.length)) return this.keep(socket);
    if (this.current && !this.parked.length && this.giving < MAX_GIVING) return this.give(socket);
    this.parked.push(socket);
    this.startParkTimer();
    this.changed();
  }

  /** a connection another worker gave this one: always kept */
  given(socket: Socket): void {
    this.keep(socket);
  }

  /** the main process's table */
  heard({ held, reports }: HeldTable): void {
    this.table = held;
    if (reports[this.options.slot] === this.reports && this.echoed !== this.reports) {
      this.slowestRoundTrip = Math.max(performance.now() - this.reportedAt, this.slowestRoundTrip * ROUND_TRIP_MEMORY);
    }
    this.echoed = reports[this.options.slot];
    if (this.current && this.parked.length) this.decideParked();
  }

  /** the table holds this worker's count as it is: it has seen every change here, and is as fresh as this worker can know */
  private get current(): boolean {
    return this.echoed === this.reports && this.held + this.parked.length === this.reported;
  }

  close(): void {
    clearTimeout(this.reportTimer);
    clearTimeout(this.parkTimer);
    clearImmediate(this.reportSoon);
    this.reportTimer = this.parkTimer = this.reportSoon = undefined;
  }

  /** whether a worker holding `holding` (besides the connection in question) gives it to the worker holding the fewest */
  private wouldGive(holding: number): boolean {
    const fewest = fewestHolding(this.table, this.options.slot);
    return fewest !== undefined && givesAway(holding, this.table[fewest]!);
  }

  /**
   * On a table that holds this worker's count: keeps the waiting connections it holds in any
   * case, gives half of the rest away, and holds the other half back for the next table. That
   * table may be behind on the other workers (in a burst they accept at the same time, their
   * reports on the way), so each table moves half of what it shows, and the next shows where
   * that half landed. Giving all at once on a table of [36, 6] left a burst at 22/44 (the other
   * worker had taken 30 meanwhile).
   */
  private decideParked() {
    this.stopParkTimer();
    const table = [...this.table];
    let movable = 0;
    while (movable < this.parked.length) {
      const fewest = fewestHolding(table, this.options.slot);
      if (fewest === undefined || !givesAway(this.held + this.parked.length - movable - 1, table[fewest]!)) break;
      table[fewest]!++;
      movable++;
    }
    // the longest waiting are served first
    for (const socket of this.parked.splice(0, this.parked.length - movable)) this.keep(socket);
    for (const socket of this.parked.splice(0, Math.min(Math.ceil(movable / 2), MAX_GIVING - this.giving))) this.give(socket);
    if (this.parked.length) this.startParkTimer();
  }

  /** keeps every waiting connection: no table holding this worker's count came in time */
  private keepParked() {
    this.stopParkTimer();
    this.keptUnbalanced.inc(this.parked.length);
    for (const socket of this.parked.splice(0)) this.keep(socket);
  }

  private startParkTimer() {
    this.parkTimer ??= setTimeout(() => this.keepParked(), Math.min(MAX_PARKED_MS, Math.max(MIN_PARKED_MS, 2 * this.slowestRoundTrip)));
  }

  private stopParkTimer() {
    clearTimeout(this.parkTimer);
    this.parkTimer = undefined;
  }

  private give(socket: Socket) {
    this.table[fewestHolding(this.table, this.options.slot)!]!++;
    this.givenAway.inc();
    this.giving++;
    this.changed();
    this.options.giveAway(
      socket,
      () => {
        this.giving--;
        if (this.current && this.parked.length) this.decideParked();
      },
      () => {
        this.giving--;
        this.keep(socket);
      },
    );
  }

  private keep(socket: Socket) {
    this.held++;
    this.changed();
    socket.once('close', () => {
      this.held--;
      this.changed();
    });
    this.options.serve(socket);
  }

  private changed() {
    const holding = this.held + this.parked.length;
    if (this.parked.length || Math.abs(holding - this.reported) >= Math.max(REPORT_AT_CHANGE, Math.ceil(this.reported * REPORT_AT_SHARE))) {
      // once per turn: a burst accepted in one turn is one report
      this.reportSoon ??= setImmediate(() => this.report());
    } else this.reportTimer ??= setTimeout(() => this.report(), REPORT_INTERVAL_MS);
  }

  private report() {
    clearTimeout(this.reportTimer);
    clearImmediate(this.reportSoon);
    this.reportTimer = this.reportSoon = undefined;
    const holding = this.held + this.parked.length;
    if (holding === this.reported) return;
    this.reported = holding;
    this.reportedAt = performance.now();
    this.options.report(holding, ++this.reports);
  }
}
