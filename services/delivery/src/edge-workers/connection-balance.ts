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
 */

/** a worker gives a connection away only when it holds this many more than the fewest elsewhere … */
const MIN_SLACK = 2;
/** … or this share of the fewest, when that is more: small imbalances are not worth a move */
const SLACK_SHARE = 1 / 8;
/**
 * A worker tells the main process how many connections it holds at once when the count moved
 * by this many since its last report (or by this share of it, when that is more) …
 */
const REPORT_AT_CHANGE = 2;
const REPORT_AT_SHARE = 1 / 16;
/** … and any smaller change after this long: a burst, or a crowd leaving, is known within a turn or two, while a steady trickle of connections costs a message per interval */
const REPORT_INTERVAL_MS = 10;

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
  /** tells the main process how many connections this worker holds */
  report(held: number): void;
  /** gives the socket to the main process for another worker; `kept` when that failed */
  giveAway(socket: Socket, kept: () => void): void;
  /** serves a connection this worker keeps */
  serve(socket: Socket): void;
  registry: Registry;
}

/** An edge worker's side: which connections it keeps, and what it knows of the others. */
export class ConnectionBalance {
  private held = 0;
  /** what the main process last said every worker holds, plus what this one gave each since */
  private table: (number | null)[] = [];
  private reported = 0;
  private reportTimer?: NodeJS.Timeout;
  private readonly givenAway: Counter;

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
  }

  /** a connection this worker accepted (not read yet): kept, or given to the worker holding the fewest */
  accepted(socket: Socket): void {
    const fewest = fewestHolding(this.table, this.options.slot);
    if (fewest !== undefined && givesAway(this.held, this.table[fewest]!)) {
      this.table[fewest]!++;
      this.givenAway.inc();
      this.options.giveAway(socket, () => this.keep(socket));
    } else this.keep(socket);
  }

  /** a connection another worker gave this one: always kept */
  given(socket: Socket): void {
    this.keep(socket);
  }

  /** the main process's table: how many connections each worker holds */
  heard(table: (number | null)[]): void {
    this.table = table;
  }

  close(): void {
    clearTimeout(this.reportTimer);
    this.reportTimer = undefined;
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
    if (Math.abs(this.held - this.reported) >= Math.max(REPORT_AT_CHANGE, Math.ceil(this.reported * REPORT_AT_SHARE))) return this.report();
    this.reportTimer ??= setTimeout(() => this.report(), REPORT_INTERVAL_MS);
  }

  private report() {
    clearTimeout(this.reportTimer);
    this.reportTimer = undefined;
    if (this.held !== this.reported) this.options.report((this.reported = this.held));
  }
}
