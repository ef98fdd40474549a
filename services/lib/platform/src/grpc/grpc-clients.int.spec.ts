import { randomBytes } from 'node:crypto';
import { createServer as createTcpServer } from 'node:net';
import { createServer, type Server } from 'nice-grpc';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SigningServiceDefinition, type SigningServiceImplementation } from '@packyard/proto/packyard/signing/v1/signing';
import { PackyardError } from '../errors/errors';
import { CallerAssertions } from './caller';
import { createGrpcClients } from './grpc-clients';

/** a port nothing listens on: taken, then given back */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('calls between modules, to a module of two replicas', () => {
  let server: Server;
  let live: string;
  let down: string;

  beforeAll(async () => {
    server = createServer();
    // only getPublicKey is asked for; the others answer that they are not there
    const notHere = async () => {
      throw new Error('not implemented here');
    };
    const implementation = Object.fromEntries(Object.keys(SigningServiceDefinition.methods).map((method) => [method, notHere]));
    server.add(SigningServiceDefinition, { ...implementation, getPublicKey: async () => ({ armored: 'key', fingerprint: 'F', binary: new Uint8Array() }) } as unknown as SigningServiceImplementation);
    live = `127.0.0.1:${await server.listen('127.0.0.1:0')}`;
    down = `127.0.0.1:${await closedPort()}`;
  });

  afterAll(() => server?.shutdown());

  it('passes over a replica that cannot be reached once a call found it down, while the other answers', async () => {
    const clients = createGrpcClients({
      registry: new Registry(),
      deadlineMs: 5_000,
      assertions: new CallerAssertions(randomBytes(32)),
      addressesOf: () => [live, down],
    });
    const signing = clients.client(SigningServiceDefinition, 'signing');
    const answers: string[] = [];
    for (let call = 0; call < 10; call++) answers.push(await signing.getPublicKey({ repositoryId: 'r' }).then(({ armored }) => armored, (error: PackyardError) => error.kind));
    clients.close();
    // the down replica's first turn finds it down (503 to a user); every later call goes to the live one
    expect(answers).toEqual(['key', 'UNAVAILABLE', 'key', 'key', 'key', 'key', 'key', 'key', 'key', 'key']);
  });
});
