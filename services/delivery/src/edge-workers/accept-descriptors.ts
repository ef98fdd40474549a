import type { SendHandle } from 'node:child_process';
import { Server, type Socket } from 'node:net';

/**
 * Descriptors of the public port each edge worker accepts through. libuv (since 1.45)
 * accepts one connection per descriptor per turn of the event loop, and a turn of a busy
 * worker serves every connection that has a request first: a burst of 1,000 new
 * connections on one descriptor took 1–5 s to be accepted here, and their first requests
 * waited that long (wrk's p99 0.6–1.2 s, nginx's 25–37 ms). Eight descriptors of the same
 * socket accept eight per turn (p99 24 ms on the same test). Node 20 has no SO_REUSEPORT,
 * so the copies are duplicates of the one socket, made by passing it over IPC.
 */
export const ACCEPT_DESCRIPTORS = 8;

/** a server's listening socket as a raw handle, which IPC can pass without listening on it at the other end */
export function listeningHandleOf(server: Server): SendHandle {
  // node:net keeps it in `_handle`; passing the Server itself would have the receiver listen on it
  const handle = (server as unknown as { _handle?: SendHandle })._handle;
  if (!handle) throw new Error('the server does not listen');
  return handle;
}

/**
 * Accepts on `handle` (a duplicate of `server`'s listening socket) and hands every
 * connection to `server` as its own would be; the returned server is closed with it.
 */
export function acceptAlsoThrough(server: Server, handle: unknown): Server {
  // noDelay as node:http's own server sets it on the connections it accepts
  const copy = new Server({ noDelay: true }, (socket: Socket) => server.emit('connection', socket));
  copy.listen(handle as Parameters<Server['listen']>[0]);
  return copy;
}
