import { STATUS_CODES, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { recyclerOf } from '../blobs/blob-store.port';

/**
 * An edge's own HTTP/1.1, for what apt, dnf and a CDN send the apt/yum edge nearly always:
 * `GET` and `HEAD` of its URLs (`/deb/…`, `/rpm/…`), without a body. node:http costs about 1.5× nginx's CPU
 * for a small answer (its request and response objects, header validation, a write of the
 * head and one of the body); here a request is one pass over its head and its answer one
 * socket write (the head cached per file, the body behind it).
 *
 * Anything else hands the connection to node:http, with every byte not yet answered: another
 * method or URL (the API, the console), HTTP/1.0, a body (Content-Length, Transfer-Encoding),
 * Expect, Upgrade, a header repeated that the edge reads, a missing Host, a head over 16 KiB,
 * or a line that is not strictly `name: value` CRLF. node:http then answers as it always did
 * (400, 431, forwarding), so this reader never has to reject anything itself, and two parsers
 * can never disagree on where a request ends: the edge takes only requests that end at their
 * blank line.
 */

/** A request as an edge reads it: from node:http, or from the reader below. */
export interface EdgeRequest {
  method?: string;
  url?: string;
  headers: Pick<IncomingHttpHeaders, 'authorization' | 'if-none-match' | 'if-modified-since' | 'range'> & { 'if-range'?: string | string[] };
}

/** How an edge answers one request: each request gets exactly one send, stream or destroy. */
export interface EdgeReply {
  /** the whole answer: status, header pairs (`[name, value, …]`), and the body if there is one */
  send(status: number, headers: readonly string[], body?: Buffer): void;
  /** status and headers now, then `body` with back-pressure; a body that fails midway cuts the connection */
  stream(status: number, headers: readonly string[], body: Readable): void;
  /** cuts the connection (the client sees the server go away, and retries) */
  destroy(): void;
  /** whether the status line has gone out */
  readonly started: boolean;
}

/**
 * A bare handler for a URL space that must be as fast as a static file server (the apt/yum
 * edge): it sees its requests before fastify's routing and hooks, read by this module's
 * reader (or node:http's, for a connection that reader passed on).
 */
export interface EdgeHandler {
  /** true when the request belongs to this edge (checked on every request: keep it cheap) */
  matches(url: string): boolean;
  answer(request: EdgeRequest, reply: EdgeReply): void;
}

/**
 * Writes `stream` into `target` (a response, or the socket itself) with back-pressure, and
 * calls `finished` after its last chunk. When the blob store's stream takes chunks back
 * (RecyclingStream), each goes back once the socket has taken its bytes, so a large file is
 * served from a few buffers reused rather than one allocated (and collected) per MiB. A
 * client going away mid-download is its own business, not an error: the stream stops (and
 * lets go of its file).
 */
export function streamInto(stream: Readable, target: Writable, finished: () => void): void {
  const recycle = recyclerOf(stream);
  // given back only once written: on an error the socket may not be done with it
  const written = recycle ? (chunk: Buffer) => (error?: Error | null) => error || recycle(chunk) : () => undefined;
  const resume = () => stream.resume();
  const gone = () => stream.destroy();
  stream.on('data', (chunk: Buffer) => {
    if (!target.write(chunk, written(chunk))) stream.pause();
  });
  target.on('drain', resume);
  target.once('close', gone);
  stream.once('end', () => {
    target.off('drain', resume);
    target.off('close', gone);
    finished();
  });
  // a file unreadable halfway: the client sees the connection cut
  stream.once('error', () => target.destroy());
}

/** node:http's response as an EdgeReply */
export function replyThrough(response: ServerResponse): EdgeReply {
  return {
    send: (status, headers, body) => void response.writeHead(status, headers as string[]).end(body),
    stream: (status, headers, body) => {
      response.writeHead(status, headers as string[]);
      streamInto(body, response, () => response.end());
    },
    destroy: () => void response.destroy(),
    get started() {
      return response.headersSent;
    },
  };
}

/** node's own limit for a request head */
const MAX_HEAD_BYTES = 16 * 1024;
/**
 * a head that arrives in more pieces than this goes to node:http, whose parser reads
 * incrementally: here each piece joins and searches what came before, which a client
 * sending a byte at a time would make quadratic
 */
const MAX_HEAD_PIECES = 32;
/** pipelined requests held while one is answered; past this the socket is not read until it is */
const MAX_QUEUED_BYTES = 64 * 1024;
/**
 * A head and body up to this size go out as one buffer from Node's shared pool (a copy of a
 * few KB beats a second buffer in the write); bigger bodies follow their head in one
 * corked write, uncopied. Joined into a buffer of its own per answer, a 10 KB InRelease ran
 * at 0.55x nginx with a 25 ms p99 in the delivery benchmark; corked, at 1.09-1.23x.
 */
const JOINED_BYTES = Buffer.poolSize >>> 1;
const HEAD_END = '\r\n\r\n';
const EMPTY = Buffer.alloc(0);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// visible ASCII, and no '%00'-style trickery is possible here: the edge decodes the path itself
const TARGET = /^\/[\x21-\x7e]*$/;
// field content: no control characters but HTAB (a bare CR or LF inside a line is refused)
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** the headers the edge reads; `host` must be there once */
const READ_HEADERS = new Set(['host', 'authorization', 'if-none-match', 'if-modified-since', 'range', 'if-range', 'connection']);
/** a request with any of these is node:http's */
const NOT_THE_EDGES = new Set(['content-length', 'transfer-encoding', 'expect', 'upgrade']);

export interface ParsedRequest extends EdgeRequest {
  method: 'GET' | 'HEAD';
  url: string;
  headers: { host: string; authorization?: string; 'if-none-match'?: string; 'if-modified-since'?: string; range?: string; 'if-range'?: string; connection?: string };
  /** `Connection: close`: the connection ends after the answer */
  close: boolean;
}

/**
 * The request in `head` (the bytes before the blank line, as latin1) when it is one the edge
 * takes as it stands, else undefined: then node:http reads it.
 */
export function parseRequestHead(head: string): ParsedRequest | undefined {
  const lineEnd = head.indexOf('\r\n');
  if (lineEnd < 0) return undefined;
  const first = head.indexOf(' ');
  const second = head.indexOf(' ', first + 1);
  if (first < 0 || second < 0 || second > lineEnd || head.slice(second + 1, lineEnd) !== 'HTTP/1.1') return undefined;
  const method = head.slice(0, first);
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const url = head.slice(first + 1, second);
  if (!TARGET.test(url)) return undefined;
  const headers: Record<string, string> = {};
  for (let start = lineEnd + 2; start < head.length; ) {
    let end = head.indexOf('\r\n', start);
    if (end < 0) end = head.length;
    const colon = head.indexOf(':', start);
    if (colon < 0 || colon > end) return undefined;
    const name = head.slice(start, colon);
    if (!TOKEN.test(name)) return undefined;
    const value = head.slice(colon + 1, end).trim();
    if (!FIELD_VALUE.test(value)) return undefined;
    const lower = name.toLowerCase();
    if (NOT_THE_EDGES.has(lower)) return undefined;
    if (READ_HEADERS.has(lower)) {
      if (lower in headers) return undefined;
      headers[lower] = value;
    }
    start = end + 2;
  }
  if (headers.host === undefined) return undefined;
  const connection = headers.connection?.toLowerCase();
  if (connection !== undefined && connection !== 'keep-alive' && connection !== 'close') return undefined;
  return { method, url, headers: headers as ParsedRequest['headers'], close: connection === 'close' };
}

let dateLine = '';
let dateUntil = 0;
/** `Date: …` CRLF, made once a second (as node:http does) */
function currentDateLine(): string {
  const now = Date.now();
  if (now >= dateUntil) {
    dateLine = `Date: ${new Date(now).toUTCString()}\r\n`;
    dateUntil = now - (now % 1000) + 1000;
  }
  return dateLine;
}

/** header pairs as header lines; the edge's header lists are made once per file, so their text is too */
const headerText = new WeakMap<readonly string[], string>();
function headerLines(headers: readonly string[]): string {
  let text = headerText.get(headers);
  if (text === undefined) {
    text = '';
    for (let i = 0; i < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`;
    headerText.set(headers, text);
  }
  return text;
}

const statusLines = new Map<number, string>();
function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) statusLines.set(status, (line = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`));
  return line;
}

/**
 * Has `server` (node:http, listening as before) give every connection it accepts to the
 * edge's reader first; the connections the edge gives up on go back to node:http, with the
 * bytes read and not answered, and from then on are node:http's alone. With `accepted`, the
 * server's new connections go there instead, which gives those it keeps to `take`.
 */
export function edgeFirst(server: Server, options: Omit<EdgeConnectionsOptions, 'handOff'> & { accepted?(socket: Socket): void }): EdgeConnections {
  const httpConnection = server.listeners('connection')[0] as (socket: Socket) => void;
  server.removeListener('connection', httpConnection);
  const connections = new EdgeConnections({
    ...options,
    handOff(socket, unread) {
      httpConnection.call(server, socket);
      // read before node:http's parser took the socket: it sees them first, then what follows
      if (unread.length) socket.emit('data', unread);
    },
  });
  server.on('connection', options.accepted ?? ((socket: Socket) => connections.take(socket)));
  return connections;
}

export interface EdgeConnectionsOptions {
  edge: EdgeHandler;
  /** takes over a connection this reader gives up on, with the bytes read and not answered */
  handOff(socket: Socket, unread: Buffer): void;
  /** a connection quiet this long is closed */
  idleMs: number;
  /** a request's head must be complete this long after its first byte */
  headersMs: number;
}

/** The connections the edge reads itself; `take` every accepted socket. */
export class EdgeConnections {
  private readonly open = new Set<EdgeConnection>();
  private closing = false;

  constructor(private readonly options: EdgeConnectionsOptions) {}

  take(socket: Socket): void {
    const connection = new EdgeConnection(socket, this.options, this.open);
    this.open.add(connection);
    // the server is going away but still listening: one answer, then the client goes elsewhere
    if (this.closing) connection.endAfterAnswer();
  }

  /** idle connections end now, busy ones after their answer, new ones after their first */
  closeIdle(): void {
    this.closing = true;
    for (const connection of this.open) connection.closeWhenIdle();
  }

  closeAll(): void {
    this.closing = true;
    for (const connection of this.open) connection.socket.destroy();
  }
}

class EdgeConnection implements EdgeReply {
  private unread: Buffer = EMPTY;
  /** an answer is under way: what arrives meanwhile waits */
  private busy = false;
  /** the answer under way (or the next) is the connection's last */
  private closeAfter = false;
  private ending = false;
  /** the client ended its side: what it sent is answered, then the connection ends */
  private clientEnded = false;
  /** next() is on the stack: an answer sent at once lets its loop go on, rather than recursing */
  private reading = false;
  /** reads since the last head was complete */
  private pieces = 0;
  private headTimer?: NodeJS.Timeout;
  started = false;

  constructor(
    readonly socket: Socket,
    private readonly options: EdgeConnectionsOptions,
    private readonly open: Set<EdgeConnection>,
  ) {
    socket.setNoDelay(true);
    socket.setTimeout(options.idleMs);
    socket.on('data', this.onData);
    socket.on('timeout', this.onTimeout);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
    socket.on('end', this.onEnd);
    // a server that pauses new connections (pauseOnConnect) leaves them to be read from here
    socket.resume();
  }

  private readonly onData = (chunk: Buffer) => {
    this.unread = this.unread.length ? Buffer.concat([this.unread, chunk]) : chunk;
    this.pieces++;
    this.next();
  };

  private readonly onTimeout = () => this.socket.destroy();
  // node:http's server lets a client half-close (allowHalfOpen): without this end, a
  // connection the client left would wait out the idle timeout in CLOSE-WAIT
  private readonly onEnd = () => {
    this.clientEnded = true;
    if (!this.busy && !this.reading) this.next();
  };
  // a reset by the client: 'close' follows
  private readonly onError = () => undefined;
  private readonly onClose = () => {
    clearTimeout(this.headTimer);
    this.open.delete(this);
  };

  /** answers the requests read, one at a time, in order */
  private next(): void {
    this.reading = true;
    try {
      this.readRequests();
    } finally {
      this.reading = false;
    }
    if (this.busy && this.unread.length > MAX_QUEUED_BYTES && !this.socket.isPaused()) this.socket.pause();
    // every whole request the client sent is answered; a partial one never will be
    if (this.clientEnded && !this.busy && !this.ending && this.open.has(this)) this.end();
  }

  private readRequests(): void {
    while (!this.busy && this.unread.length && !this.ending) {
      const end = this.unread.indexOf(HEAD_END);
      if (end < 0) {
        if (this.unread.length > MAX_HEAD_BYTES || this.pieces > MAX_HEAD_PIECES) return this.handOff();
        // slow or partial heads: node:http's rule, the whole head within headersMs
        this.headTimer ??= setTimeout(() => this.socket.destroy(), this.options.headersMs);
        return;
      }
      if (end > MAX_HEAD_BYTES) return this.handOff();
      const request = parseRequestHead(this.unread.toString('latin1', 0, end));
      if (!request || !this.options.edge.matches(request.url)) return this.handOff();
      clearTimeout(this.headTimer);
      this.headTimer = undefined;
      this.pieces = 0;
      this.unread = this.unread.length === end + 4 ? EMPTY : this.unread.subarray(end + 4);
      if (request.close) this.closeAfter = true;
      this.busy = true;
      this.started = false;
      // answered at once (from memory) or later: send, stream or destroy ends it
      this.options.edge.answer(request, this);
    }
  }

  private handOff(): void {
    clearTimeout(this.headTimer);
    this.socket.off('data', this.onData);
    this.socket.off('timeout', this.onTimeout);
    this.socket.off('error', this.onError);
    this.socket.off('close', this.onClose);
    this.socket.off('end', this.onEnd);
    this.socket.setTimeout(0);
    this.open.delete(this);
    const unread = this.unread;
    this.unread = EMPTY;
    this.options.handOff(this.socket, unread);
  }

  endAfterAnswer(): void {
    this.closeAfter = true;
  }

  closeWhenIdle(): void {
    this.closeAfter = true;
    if (!this.busy) this.end();
  }

  private end(): void {
    this.ending = true;
    this.socket.end();
  }

  private head(status: number, headers: readonly string[]): string {
    return `${statusLine(status)}${headerLines(headers)}${currentDateLine()}${this.closeAfter ? 'Connection: close\r\n' : ''}\r\n`;
  }

  send(status: number, headers: readonly string[], body?: Buffer): void {
    this.started = true;
    const head = this.head(status, headers);
    if (this.socket.writable) {
      if (!body?.length) this.socket.write(head, 'latin1');
      else if (head.length + body.length < JOINED_BYTES) {
        const bytes = Buffer.allocUnsafe(head.length + body.length);
        bytes.write(head, 0, 'latin1');
        body.copy(bytes, head.length);
        this.socket.write(bytes);
      } else {
        this.socket.cork();
        this.socket.write(head, 'latin1');
        this.socket.write(body);
        this.socket.uncork();
      }
    }
    this.done();
  }

  stream(status: number, headers: readonly string[], body: Readable): void {
    this.started = true;
    this.socket.write(this.head(status, headers), 'latin1');
    streamInto(body, this.socket, () => this.done());
  }

  destroy(): void {
    this.socket.destroy();
  }

  private done(): void {
    this.busy = false;
    if (this.closeAfter) return this.end();
    if (this.socket.isPaused()) this.socket.resume();
    if (!this.reading) this.next();
  }
}
