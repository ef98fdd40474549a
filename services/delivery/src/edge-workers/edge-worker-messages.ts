import type { MetricsSnapshot } from '@packyard/platform';
import type { TrafficTotalsSnapshot } from '../accounting/traffic-accounting';
import type { HeldTable } from './connection-balance';

/** what the delivery module tells its edge workers over the IPC channel */
export type ToEdgeWorker =
  /** the answer to `subscribed`: every change from now on will be sent, so the read model can be read */
  | { type: 'welcome' }
  /** this process's HTTP server listens: open the public port; the modules the worker calls answer gRPC there */
  | { type: 'listen'; moduleAddresses: Record<string, string> }
  /** the repository's published files changed in delivery's read model: rebuild them, then answer `refreshed` */
  | { type: 'refresh'; repositoryId: string; seq: number }
  /** a token was revoked: no verdict about it may let a request through any more */
  | { type: 'revoke'; tokenId: string }
  /** a scrape of /metrics: answer `metrics` with this process's registry */
  | { type: 'metrics'; seq: number }
  /** how many connections each worker holds */
  | { type: 'held'; table: HeldTable }
  /** sent with a connection another worker accepted and gave away (not read yet): serve it, and say `took` with its number */
  | { type: 'connection'; number: number };

/** what an edge worker tells the delivery module */
export type FromEdgeWorker =
  /** its message handler is in place: from now on it gets every refresh and revocation */
  | { type: 'subscribed' }
  /** its catalogue is loaded: it can listen */
  | { type: 'ready' }
  /** it accepts connections on the public port */
  | { type: 'listening'; port: number }
  /** it could not listen (the port is taken, say); it exits */
  | { type: 'failed'; message: string }
  | { type: 'refreshed'; seq: number }
  | { type: 'metrics'; seq: number; metrics: MetricsSnapshot }
  /** what it served since its last report, for the delivery module's traffic events */
  | { type: 'traffic'; totals: TrafficTotalsSnapshot }
  /** how many connections it holds now, in its `report`th report */
  | { type: 'held'; count: number; report: number }
  /** sent with a connection it accepted and does not keep (not read yet): give it to the worker holding the fewest */
  | { type: 'give' }
  /** it has the connection sent in message `connection` (the main process's copy can close) */
  | { type: 'took'; connection: number };

/** environment of a worker: which slot it fills (its metrics label) and where the main process's HTTP server is */
export const EDGE_WORKER_SLOT_ENV = 'PACKYARD_EDGE_WORKER_SLOT';
export const PRIMARY_SOCKET_ENV = 'PACKYARD_EDGE_PRIMARY_SOCKET';
