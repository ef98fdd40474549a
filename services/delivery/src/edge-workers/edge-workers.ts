import type { SendHandle } from 'node:child_process';
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { MetricsSnapshot } from '@packyard/platform';
import type { TrafficTotalsSnapshot } from '../accounting/traffic-accounting';
import { fewestHolding } from './connection-balance';
import { EDGE_WORKER_SLOT_ENV, PRIMARY_SOCKET_ENV, type FromEdgeWorker, type ToEdgeWorker } from './edge-worker-messages';

/** a worker that has not rebuilt a repository by then is not waited for (it logs its own failure) */
const REFRESH_ACK_TIMEOUT_MS = 10_000;
const METRICS_TIMEOUT_MS = 2_000;
/** a worker that dies right after starting is restarted after this, doubling up to the maximum */
const FIRST_RESTART_DELAY_MS = 100;
const MAX_RESTART_DELAY_MS = 5_000;
/** a worker that ran this long before dying is restarted at once */
const STABLE_AFTER_MS = 10_000;
/**
 * V8's young generation of a worker, per semi-space (Node 20's default is 16 MiB). Every
 * request allocates (its parser state, headers, closures); a small young generation is
 * scavenged many times a second under load, and what is live in requests in flight at each
 * scavenge is copied and promoted, to be collected later by the old generation's pauses.
 * delivery.bench.ts, whole runs on a quiet machine: with the default, 1,000 connections had
 * a p99 2.2x nginx's in two runs and other rows dipped to 0.82x; with 64 MiB that p99 was
 * 0.2-1.5x nginx's in eight runs. It is a ceiling: an idle worker stays small.
 */
export const EDGE_WORKER_SEMI_SPACE_MB = 64;
const SEMI_SPACE_FLAG = '--max-semi-space-size';
/**
 * … and its floor. V8 shrinks the young generation of a process that has allocated little for
 * a while (both workers of an idle program went from 64 MiB to 1 MiB 13-21 s after it went
 * quiet) and grows it again only when much survives a scavenge, which requests do not: in a
 * delivery.bench.ts run, a worker that had been idle served the next 64 connections with a
 * 1 MiB semi-space, scavenging 43 times a second (--trace-gc), the other, never shrunk, 3 times.
 */
export const EDGE_WORKER_MIN_SEMI_SPACE_MB = 16;
const MIN_SEMI_SPACE_FLAG = '--min-semi-space-size';

/** the file a worker process runs, when not the program's own (see runEdgeWorkersFrom) */
let workerEntry: string | undefined;

/**
 * Has edge workers run `file` instead of the program's entry point: the bundle `npm start`
 * runs has one of its own for them, which loads the edge's code only (the program's bundle
 * loads every module's dependencies, about 1.5 s of CPU per worker at each start here).
 */
export function runEdgeWorkersFrom(file: string): void {
  workerEntry = file;
}

interface Closable {
  close(): void;
}

interface Slot {
  index: number;
  worker?: Worker;
  /** it can serve connections (its edge is built), and is told to listen once this process knows where its modules answer */
  ready: boolean;
  /** true once the worker gets every refresh and revocation (it said `subscribed`) */
  subscribed: boolean;
  /**
   * connections it holds (its last report, plus those given to it since); null until it is
   * told to listen. Counted from then, not from its `listening`: the workers that listen first
   * take the connections queued while the port was closed, and give the others theirs
   * (connection-balance.ts), where a worker counted only once it listens would find every
   * client kept alive on its elder
   */
  held: number | null;
  /** the number of its last report of them */
  reports: number;
  /**
   * connections on their way to it, by the number of the message carrying each, until it says it
   * `took` them: node's IPC holds a handle back until the one before is acknowledged, and one
   * written to the channel of a worker that dies before reading it would be lost
   */
  arriving: Map<number, Closable>;
  startedAt: number;
  restartDelayMs: number;
  restartTimer?: NodeJS.Timeout;
}

export interface EdgeWorkersOptions {
  count: number;
  /** the main process's HTTP server, which workers forward API and console requests to */
  primarySocket: string;
  logger: Logger;
  onTraffic(totals: TrafficTotalsSnapshot): void;
  shutdownTimeoutMs: number;
}

/**
 * Edge worker processes (node:cluster) serving the public port beside the modules of this
 * process. Scheduling is SCHED_NONE: this process only binds the port and hands the socket
 * to the workers, which all accept on it; the kernel gives a connection to whichever
 * accepts first, so this process, busy with publishing, is never on the accept path. It
 * only passes on the connections a worker holding too many gives away (connection-balance.ts).
 * A worker that dies is restarted; `stop` ends them all.
 */
export class EdgeWorkers {
  private readonly slots: Slot[];
  private readonly waiting = new Map<number, (message: FromEdgeWorker) => void>();
  private seq = 0;
  private stopping = false;
  /** set once this process's HTTP server listens: where the workers' gRPC calls go */
  private moduleAddresses?: Record<string, string>;
  private started?: Promise<number>;
  /** every worker was told to listen once */
  private portOpened = false;
  private heldTold?: NodeJS.Immediate;

  constructor(private readonly options: EdgeWorkersOptions) {
    this.slots = Array.from({ length: options.count }, (_, index) => ({ index, ready: false, subscribed: false, held: null, reports: 0, arriving: new Map(), startedAt: 0, restartDelayMs: FIRST_RESTART_DELAY_MS }));
  }

  /** forks every worker, which loads its catalogue meanwhile (while this process starts its modules) */
  start(): void {
    cluster.schedulingPolicy = cluster.SCHED_NONE;
    // the program's own flags (a profile, say) stay; a semi-space size given there wins
    const flags = process.execArgv.some((flag) => flag.startsWith(SEMI_SPACE_FLAG) || flag.startsWith(MIN_SEMI_SPACE_FLAG))
      ? process.execArgv
      : [...process.execArgv, `${SEMI_SPACE_FLAG}=${EDGE_WORKER_SEMI_SPACE_MB}`, `${MIN_SEMI_SPACE_FLAG}=${EDGE_WORKER_MIN_SEMI_SPACE_MB}`];
    cluster.setupPrimary({ execArgv: flags, ...(workerEntry && { exec: workerEntry }) });
    this.started = new Promise((resolve, reject) => {
      let listening = 0;
      for (const slot of this.slots) {
        this.fork(slot, {
          listening: (port) => {
            if (++listening === this.slots.length) resolve(port);
          },
          failed: (reason) => reject(new Error(`edge worker ${slot.index + 1}: ${reason}`)),
        });
      }
    });
    // a failure before `listen` is reported by it
    this.started.catch(() => undefined);
  }

  /** has every worker listen on the public port (all at once, see tellReadyToListen); resolves with the port once all do */
  listen(moduleAddresses: Record<string, string>): Promise<number> {
    this.moduleAddresses = moduleAddresses;
    this.tellReadyToListen();
    return this.started!;
  }

  /** every worker rebuilds the repository's files; resolves once each has (or died, or timed out) */
  async refresh(repositoryId: string): Promise<void> {
    await Promise.all(this.ask((seq) => ({ type: 'refresh', repositoryId, seq }), REFRESH_ACK_TIMEOUT_MS));
  }

  revoke(tokenId: string): void {
    for (const slot of this.slots) if (slot.subscribed) this.send(slot, { type: 'revoke', tokenId });
  }

  /** every live worker's metrics, for the process's /metrics */
  async metrics(): Promise<MetricsSnapshot[]> {
    const answers = await Promise.all(this.ask((seq) => ({ type: 'metrics', seq }), METRICS_TIMEOUT_MS));
    return answers.flatMap((answer) => (answer?.type === 'metrics' ? [answer.metrics] : []));
  }

  /** SIGTERM to every worker (each finishes its requests in flight and reports its last traffic); SIGKILL to any still there after the shutdown timeout */
  async stop(): Promise<void> {
    this.stopping = true;
    clearImmediate(this.heldTold);
    const exits = this.slots.map((slot) => {
      clearTimeout(slot.restartTimer);
      const worker = slot.worker;
      if (!worker || worker.isDead()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const kill = setTimeout(() => worker.process.kill('SIGKILL'), this.options.shutdownTimeoutMs);
        worker.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        worker.process.kill('SIGTERM');
      });
    });
    await Promise.all(exits);
  }

  private fork(slot: Slot, start?: { listening(port: number): void; failed(reason: string): void }) {
    const worker = cluster.fork({ [EDGE_WORKER_SLOT_ENV]: String(slot.index + 1), [PRIMARY_SOCKET_ENV]: this.options.primarySocket });
    slot.worker = worker;
    slot.subscribed = false;
    slot.ready = false;
    slot.startedAt = Date.now();
    let listened = false;
    worker.on('message', (message: FromEdgeWorker, handle?: SendHandle) => {
      if (message.type === 'subscribed') {
        slot.subscribed = true;
        this.send(slot, { type: 'welcome' });
      } else if (message.type === 'ready') {
        slot.ready = true;
        this.tellReadyToListen();
      }
      else if (message.type === 'listening') {
        listened = true;
        this.options.logger.info({ edgeWorker: slot.index + 1, workerPid: worker.process.pid, port: message.port }, 'edge worker listening');
        start?.listening(message.port);
      } else if (message.type === 'failed') start?.failed(message.message);
      else if (message.type === 'traffic') this.options.onTraffic(message.totals);
      else if (message.type === 'held') {
        slot.held = message.count;
        slot.reports = message.report;
        this.heldChanged();
      } else if (message.type === 'give') this.give(slot, handle as unknown as Closable | undefined);
      else if (message.type === 'took') this.took(slot, message.connection);
      else this.waiting.get(message.seq)?.(message);
    });
    worker.once('exit', (code, signal) => {
      slot.subscribed = false;
      // not ready until its successor says so: told to listen meanwhile (another worker
      // becoming ready tells every ready one), the slot would count as taking connections
      slot.ready = false;
      slot.held = null;
      this.heldChanged();
      if (slot.worker === worker) slot.worker = undefined;
      // those it did not take go to another worker (closed when none listens, or the program stops: the clients retry)
      const arriving = [...slot.arriving.values()];
      slot.arriving.clear();
      for (const connection of arriving) {
        if (this.stopping) connection.close();
        else this.give(slot, connection);
      }
      if (this.stopping) return;
      if (!listened && start) return start.failed(`exited with ${code ?? signal} before it listened; see its log above`);
      const ranFor = Date.now() - slot.startedAt;
      slot.restartDelayMs = ranFor > STABLE_AFTER_MS ? FIRST_RESTART_DELAY_MS : Math.min(slot.restartDelayMs * 2, MAX_RESTART_DELAY_MS);
      const delayMs = ranFor > STABLE_AFTER_MS ? 0 : slot.restartDelayMs;
      this.options.logger.warn({ edgeWorker: slot.index + 1, workerPid: worker.process.pid, code, signal, restartInMs: delayMs }, 'edge worker exited; restarting it');
      slot.restartTimer = setTimeout(() => {
        if (!this.stopping) this.fork(slot);
      }, delayMs);
    });
  }

  /**
   * Hands a connection a worker accepted and gave away (see connection-balance.ts) to the
   * worker holding the fewest, or back to its own when no other listens. The handle is a
   * bare descriptor, read by no process until a worker serves it, so no byte is lost on the way.
   * This process keeps its copy until the worker says it took the connection.
   */
  private give(from: Slot, connection: Closable | undefined) {
    if (!connection) return;
    const to = this.slots[fewestHolding(this.slots.map((slot) => slot.held), from.index) ?? from.index];
    const worker = to.worker;
    if (!worker?.isConnected()) return connection.close();
    const number = ++this.seq;
    to.held = (to.held ?? 0) + 1;
    to.arriving.set(number, connection);
    // a send that fails leaves it arriving: the channel is gone, and the worker's exit passes it on
    this.send(to, { type: 'connection', number }, connection as unknown as SendHandle);
  }

  /** the worker has its own copy of the connection: this one closes (were it the last, the client would see the connection end) */
  private took(slot: Slot, number: number) {
    const connection = slot.arriving.get(number);
    slot.arriving.delete(number);
    connection?.close();
  }

  /**
   * Once this process knows where its modules answer, every worker is told to listen, all
   * at once when the last is ready: the first to listen takes every connection that waited
   * for the port, and keeps those its table does not show another worker to give to (after a
   * restart, the worker ready first kept all but at most one of 16 clients' connections). A
   * worker ready later (restarted) is told at once.
   */
  private tellReadyToListen() {
    if (!this.moduleAddresses || (!this.portOpened && !this.slots.every((slot) => slot.ready))) return;
    this.portOpened = true;
    for (const slot of this.slots) if (slot.ready && slot.held === null) this.tellToListen(slot);
  }

  /** the worker listens on the public port, and takes connections the others give it from now */
  private tellToListen(slot: Slot) {
    this.send(slot, { type: 'listen', moduleAddresses: this.moduleAddresses! });
    slot.held = 0;
    slot.reports = 0;
    this.heldChanged();
  }

  /** every worker told to listen learns what the others hold (once per turn, for all the reports of that turn) */
  private heldChanged() {
    if (this.stopping) return;
    this.heldTold ??= setImmediate(() => {
      this.heldTold = undefined;
      const table = { held: this.slots.map((slot) => slot.held), reports: this.slots.map((slot) => slot.reports) };
      for (const slot of this.slots) if (slot.held !== null) this.send(slot, { type: 'held', table });
    });
  }

  /** sends a question to every subscribed worker; each answer is undefined when the worker died or did not answer in time */
  private ask(question: (seq: number) => ToEdgeWorker, timeoutMs: number): Promise<FromEdgeWorker | undefined>[] {
    return this.slots
      .filter((slot) => slot.subscribed && slot.worker)
      .map((slot) => {
        const worker = slot.worker!;
        const seq = ++this.seq;
        return new Promise<FromEdgeWorker | undefined>((resolve) => {
          const done = (answer: FromEdgeWorker | undefined) => {
            clearTimeout(timer);
            this.waiting.delete(seq);
            worker.off('exit', died);
            resolve(answer);
          };
          const died = () => done(undefined);
          const timer = setTimeout(died, timeoutMs);
          this.waiting.set(seq, done);
          worker.once('exit', died);
          this.send(slot, question(seq));
        });
      });
  }

  private send(slot: Slot, message: ToEdgeWorker, handle?: SendHandle) {
    // a worker that is exiting cannot take it; its successor reads the state afresh
    if (slot.worker?.isConnected()) slot.worker.send(message, handle, undefined, (error: Error | null) => error && this.options.logger.debug({ err: error, edgeWorker: slot.index + 1 }, 'message to an edge worker lost'));
  }
}
