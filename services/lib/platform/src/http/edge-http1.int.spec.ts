import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { edgeFirst, type EdgeConnections, type EdgeReply, type EdgeRequest } from './edge-http1';

// The edge's own HTTP/1.1 reader in front of a real node:http server, with raw sockets as the
// client: requests in one write or a byte at a time, a connection passed to node:http midway,
// and the ways a client can hold a connection. The edge here answers its URL back (after a
// pause for /deb/slow, streamed for /deb/stream); node:http answers "http <method> <url>
// <body>", so each answer says who gave it.

let server: Server | undefined;
let connections: EdgeConnections | undefined;
const clients: Socket[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  connections?.closeAll();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const edge = {
  matches: (url: string) => url.startsWith('/deb/'),
  answer(request: EdgeRequest, reply: EdgeReply) {
    const body = Buffer.from(`edge ${request.method} ${request.url} auth=${request.headers.authorization ?? '-'}`);
    const headers = ['content-type', 'text/plain', 'content-length', String(body.length)];
    if (request.url === '/deb/slow') return void setTimeout(() => reply.send(200, headers, body), 50);
    if (request.url === '/deb/stream') return reply.stream(200, ['content-length', String(3 * 100_000)], Readable.from([0, 1, 2].map((n) => Buffer.alloc(100_000, 97 + n))));
    reply.send(200, headers, request.method === 'HEAD' ? undefined : body);
  },
};

async function start(timeouts = { idleMs: 5_000, headersMs: 2_000 }): Promise<number> {
  server = createServer({ requestTimeout: 0 }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.from(`http ${request.method} ${request.url} ${Buffer.concat(chunks).toString()}`);
      response.writeHead(200, { 'content-length': body.length }).end(body);
    });
  });
  connections = edgeFirst(server, { edge, ...timeouts });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** a raw client: what it sent is up to the test, its answers are read as HTTP/1.1 responses */
async function client(port: number) {
  const socket = connect(port, '127.0.0.1');
  clients.push(socket);
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = Buffer.alloc(0);
  let ended = false;
  const changed: (() => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    changed.splice(0).forEach((wake) => wake());
  });
  socket.on('close', () => {
    ended = true;
    changed.splice(0).forEach((wake) => wake());
  });
  /** the next `count` responses: status, headers and body (by content-length, none for HEAD) */
  async function responses(count: number, heads: string[] = []) {
    const parsed: { status: number; headers: Record<string, string>; body: string }[] = [];
    while (parsed.length < count) {
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = received.toString('latin1', 0, end).split('\r\n');
        const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        const length = heads[parsed.length] === 'HEAD' ? 0 : Number(headers['content-length'] ?? 0);
        if (received.length >= end + 4 + length) {
          parsed.push({ status: Number(statusLine.split(' ')[1]), headers, body: received.toString('latin1', end + 4, end + 4 + length) });
          received = received.subarray(end + 4 + length);
          continue;
        }
      }
      if (ended) throw new Error(`connection closed after ${parsed.length} of ${count} answers`);
      await new Promise<void>((resolve) => changed.push(resolve));
    }
    return parsed;
  }
  const closed = () => (ended ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve())));
  return { socket, responses, closed, isClosed: () => ended };
}

const get = (url: string, ...headers: string[]) => `GET ${url} HTTP/1.1\r\nHost: x\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;

describe("an edge's own HTTP/1.1 reader", () => {
  it('answers pipelined requests in order, and hands the connection to node:http at the first request that is not its own, bytes and all', async () => {
    const c = await client(await start());
    c.socket.write(
      get('/deb/a', 'Authorization: Basic dDo=') +
        get('/deb/slow') +
        'HEAD /deb/b HTTP/1.1\r\nHost: x\r\n\r\n' +
        'POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello' +
        get('/deb/after'),
    );
    const answers = await c.responses(5, ['GET', 'GET', 'HEAD', 'POST', 'GET']);
    expect(answers.map((a) => a.body)).toEqual(['edge GET /deb/a auth=Basic dDo=', 'edge GET /deb/slow auth=-', '', 'http POST /api/upload hello', 'http GET /deb/after ']);
    expect(answers[2].headers['content-length']).toBe(String('edge HEAD /deb/b auth=-'.length));
    expect(answers[0].headers.date).toMatch(/GMT$/);
    // node:http keeps the connection: one more request on it is still answered
    c.socket.write(get('/deb/later'));
    expect((await c.responses(1))[0].body).toBe('http GET /deb/later ');
  });

  it('reads a head that arrives in pieces, and leaves one that comes a byte at a time to node:http', async () => {
    const port = await start();
    const pieces = await client(port);
    const request = get('/deb/pieces');
    for (const piece of [request.slice(0, 5), request.slice(5, 30), request.slice(30)]) {
      pieces.socket.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await pieces.responses(1))[0].body).toBe('edge GET /deb/pieces auth=-');
    // node:http's parser reads incrementally; this reader would search the head anew each time
    const bytes = await client(port);
    for (const byte of get('/deb/slowly')) {
      bytes.socket.write(byte);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect((await bytes.responses(1))[0].body).toBe('http GET /deb/slowly ');
  });

  it('streams a body, then reads the next request', async () => {
    const c = await client(await start());
    c.socket.write(get('/deb/stream') + get('/deb/next'));
    const [streamed, next] = await c.responses(2);
    expect(streamed.body).toBe('a'.repeat(100_000) + 'b'.repeat(100_000) + 'c'.repeat(100_000));
    expect(next.body).toBe('edge GET /deb/next auth=-');
  });

  it('does not let a request hide inside another one: a GET with a body is node:http\'s, body and all', async () => {
    const c = await client(await start());
    const inner = get('/deb/smuggled');
    c.socket.write(`GET /deb/outer HTTP/1.1\r\nHost: x\r\nContent-Length: ${inner.length}\r\n\r\n${inner}`);
    const [answer] = await c.responses(1);
    expect(answer.body).toBe(`http GET /deb/outer ${inner}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // nothing more came: the inner request was a body, not a request
    c.socket.write(get('/deb/then'));
    expect((await c.responses(1))[0].body).toBe('http GET /deb/then ');
  });

  it('passes malformed and oversized heads to node:http, which refuses them', async () => {
    const port = await start();
    const malformed = await client(port);
    malformed.socket.write('GET /deb/a HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
    expect((await malformed.responses(1))[0].status).toBe(400);
    const huge = await client(port);
    huge.socket.write(`GET /deb/a HTTP/1.1\r\nHost: x\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`);
    expect((await huge.responses(1))[0].status).toBe(431);
  });

  it('closes a connection whose head is not complete in time, and one that stays idle', async () => {
    const port = await start({ idleMs: 600, headersMs: 200 });
    const slow = await client(port);
    slow.socket.write('GET /deb/a HTTP/1.1\r\nHost: x\r\n');
    const idle = await client(port);
    idle.socket.write(get('/deb/a'));
    await idle.responses(1);
    const started = Date.now();
    await slow.closed();
    expect(Date.now() - started).toBeLessThan(550);
    await idle.closed();
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('ends the connection after answering Connection: close, and says so', async () => {
    const c = await client(await start());
    c.socket.write(get('/deb/a', 'Connection: close') + get('/deb/never'));
    const [answer] = await c.responses(1);
    expect(answer.headers.connection).toBe('close');
    await c.closed();
  });

  it('answers what a client sent before ending its side, then closes the connection (not at the idle timeout)', async () => {
    const c = await client(await start());
    c.socket.end(get('/deb/slow') + get('/deb/a'));
    const started = Date.now();
    const answers = await c.responses(2);
    expect(answers.map((answer) => answer.body)).toEqual(['edge GET /deb/slow auth=-', 'edge GET /deb/a auth=-']);
    await c.closed();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('on closeIdle ends idle connections at once, busy ones after their answer, and new ones after their first', async () => {
    const port = await start();
    const idle = await client(port);
    idle.socket.write(get('/deb/a'));
    await idle.responses(1);
    const busy = await client(port);
    busy.socket.write(get('/deb/slow'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    connections!.closeIdle();
    await idle.closed();
    const [answer] = await busy.responses(1);
    expect(answer.body).toBe('edge GET /deb/slow auth=-');
    expect(answer.headers.connection).toBe('close');
    await busy.closed();
    // the port is still open while the server drains: a new client gets its answer, then goes elsewhere
    const late = await client(port);
    late.socket.write(get('/deb/late') + get('/deb/never'));
    const [lateAnswer] = await late.responses(1);
    expect(lateAnswer.body).toBe('edge GET /deb/late auth=-');
    expect(lateAnswer.headers.connection).toBe('close');
    await late.closed();
  });
});
