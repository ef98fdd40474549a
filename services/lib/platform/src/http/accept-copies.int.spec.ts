import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { descriptorsOf, listeningInode } from '@packyard/testing';
import { ACCEPT_DESCRIPTORS, acceptThroughCopies } from './accept-copies';

const listening = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
/** a connection that writes `line` and resolves with what comes back */
const ask = (port: number, line: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(line));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk)).on('end', () => resolve(answer)).on('error', reject);
  });

let server: Server | undefined;
afterEach(async () => {
  if (server?.listening) await closed(server);
});

describe('acceptThroughCopies', () => {
  it('has the server accept through eight descriptors of its socket, every connection handled as its own', async () => {
    server = createServer((socket: Socket) => socket.once('data', (data) => socket.end(`echo ${String(data)}`)));
    const port = await listening(server);
    const inode = listeningInode(port)!;
    expect(descriptorsOf('self', inode)).toBe(1);

    const errors: unknown[] = [];
    const copies = await acceptThroughCopies(server, pino({}, { write: (line: string) => errors.push(JSON.parse(line)) }));
    expect(errors).toEqual([]);
    expect(copies.count).toBe(ACCEPT_DESCRIPTORS - 1);
    expect(descriptorsOf('self', inode)).toBe(ACCEPT_DESCRIPTORS);

    const answers = await Promise.all(Array.from({ length: 200 }, (_, n) => ask(port, `${n}`)));
    expect(answers).toEqual(Array.from({ length: 200 }, (_, n) => `echo ${n}`));

    // closing the copies with the server frees the port: nothing of it is left open here
    await Promise.all([closed(server), copies.close()]);
    expect(listeningInode(port)).toBeUndefined();
    expect(descriptorsOf('self', inode)).toBe(0);
  });

  it('waits for the connections a copy accepted before its close resolves', async () => {
    const held: Socket[] = [];
    server = createServer((socket: Socket) => held.push(socket));
    const port = await listening(server);
    const copies = await acceptThroughCopies(server, pino({ level: 'silent' }));
    const clients = Array.from({ length: 40 }, () => connect(port, '127.0.0.1'));
    await new Promise<void>((resolve) => {
      const check = setInterval(() => held.length === clients.length && (clearInterval(check), resolve()), 5);
    });
    let copiesClosed = false;
    const closing = copies.close().then(() => (copiesClosed = true));
    const serverClosed = closed(server);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(copiesClosed).toBe(false);
    for (const socket of held) socket.destroy();
    await Promise.all([closing, serverClosed]);
    expect(copiesClosed).toBe(true);
    for (const client of clients) client.destroy();
  });
});
