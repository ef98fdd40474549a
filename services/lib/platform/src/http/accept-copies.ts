import { spawn, type SendHandle } from 'node:child_process';
import { Server, type Socket } from 'node:net';
import type { Logger } from 'pino';

/**
 * Descriptors a process serving the public port accepts through. libuv (since 1.45)
 * accepts one connection per listening descriptor per turn of the event loop, and a turn
 * of a busy server first serves every connection that has a request waiting: a burst of
 * 1,000 new connections on one descriptor took 1–5 s to be accepted here, and their first
 * requests waited that long (wrk's p99 0.6–1.2 s, nginx's 25–37 ms). Eight descriptors of
 * the same socket accept eight per turn (p99 24 ms on the same test). Node 20 has no
 * SO_REUSEPORT, and no dup(2): the copies are made by passing the socket over IPC.
 */
export const ACCEPT_DESCRIPTORS = 8;

/** how long the helper that makes the copies may take before the server goes on with one descriptor */
const COPIES_TIMEOUT_MS = 10_000;

/**
 * The helper process: it gets a listening socket over IPC and sends it back `copies` times
 * (each arrival at the other end is a new descriptor of the socket), then leaves. Plain
 * JavaScript for `node -e`, so it needs no file of its own in the bundle. `on`, not `once`:
 * without a message listener the IPC channel no longer holds the helper, which then left
 * with the later copies still waiting for the first one's acknowledgement.
 */
const ECHO_SOCKET = `process.on('message', ({ copies }, handle) => {
  let left = copies;
  const next = () => (left-- > 0 ? process.send('copy', handle, next) : process.disconnect());
  next();
});`;

export interface AcceptCopies {
  /** descriptors accepting beside the server's own */
  readonly count: number;
  /** stops accepting through the copies; resolves once the connections they accepted have closed */
  close(): Promise<void>;
}

/** a server's listening socket as a raw handle, which IPC passes without the other end listening on it */
function listeningHandleOf(server: Server): SendHandle {
  // node:net keeps it in `_handle`; passing the Server itself has the receiver listen on it
  const handle = (server as unknown as { _handle?: SendHandle })._handle;
  if (!handle) throw new Error('the server does not listen');
  return handle;
}

/**
 * Has `server` (listening on a TCP port) accept through `copies` more descriptors of its
 * socket: every connection they accept is the server's, as if it had accepted it. Never
 * fails: without copies (the helper could not start) the server accepts as before.
 */
export async function acceptThroughCopies(server: Server, logger: Pick<Logger, 'warn'>, copies = ACCEPT_DESCRIPTORS - 1): Promise<AcceptCopies> {
  const handles = await new Promise<unknown[]>((resolve) => {
    const received: unknown[] = [];
    // no environment: a cluster worker's would make the helper think it is one too
    const helper = spawn(process.execPath, ['-e', ECHO_SOCKET], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: {} });
    let settled = false;
    const done = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) logger.warn({ err: error, copies: received.length }, 'accepting through fewer descriptors of the port');
      if (helper.exitCode === null) helper.kill();
      resolve(received);
    };
    const timer = setTimeout(() => done(new Error(`the helper passed ${received.length} of ${copies} copies of the listening socket in ${COPIES_TIMEOUT_MS} ms`)), COPIES_TIMEOUT_MS);
    helper.on('message', (message, handle) => {
      if (message === 'copy' && handle) received.push(handle);
      if (received.length === copies) done();
    });
    helper.once('error', done);
    helper.once('exit', () => (received.length < copies ? done(new Error(`the helper left after ${received.length} of ${copies} copies of the listening socket`)) : undefined));
    helper.send({ copies }, listeningHandleOf(server), undefined, (error) => error && done(error));
  });
  // noDelay as node:http's own server sets it on the connections it accepts; paused as the server's are
  const pauseOnConnect = (server as Server & { pauseOnConnect?: boolean }).pauseOnConnect ?? false;
  const accepting = handles.map((handle) => new Server({ noDelay: true, pauseOnConnect }, (socket: Socket) => server.emit('connection', socket)).listen(handle as SendHandle));
  return {
    count: accepting.length,
    close: () => Promise.all(accepting.map((copy) => new Promise<void>((resolve) => copy.close(() => resolve())))).then(() => undefined),
  };
}
