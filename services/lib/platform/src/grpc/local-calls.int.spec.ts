import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@packyard/testing';
import { SigningServiceDefinition, type GetPublicKeyRequest, type SigningServiceImplementation } from '@packyard/proto/packyard/signing/v1/signing';
import { invalid, PackyardError } from '../errors/errors';
import { CallerAssertions, serviceCaller, type Caller } from './caller';
import { createGrpcClients, type PackyardClient } from './grpc-clients';
import { createGrpcServer, type CallerContext } from './grpc-server';

/** what a call ended with, as the calling module sees it */
const outcome = (call: Promise<{ armored: string }>) =>
  call.then(
    ({ armored }) => ({ answer: armored }),
    (error: PackyardError) => ({ kind: error.kind, code: error.code, message: error.message }),
  );

describe('calls between modules of one process', () => {
  const assertions = new CallerAssertions(randomBytes(32));
  const seen: { caller: Caller; request: GetPublicKeyRequest }[] = [];
  const { server, local } = createGrpcServer(new Registry(), pino({ level: 'silent' }), () => ['signing'], assertions);
  let listening: string;

  beforeAll(async () => {
    const notHere = async () => {
      throw new Error('not implemented here');
    };
    const implementation = Object.fromEntries(Object.keys(SigningServiceDefinition.methods).map((method) => [method, notHere]));
    server.add(SigningServiceDefinition, {
      ...implementation,
      getPublicKey: async (request: GetPublicKeyRequest, context: CallerContext) => {
        seen.push({ caller: context.caller, request });
        if (request.repositoryId === 'refused') throw invalid('PACKYARD_TEST_REFUSED', 'This repository is refused');
        if (request.repositoryId === 'broken') throw new Error('a bug');
        if (request.repositoryId === 'slow') await new Promise((resolve) => setTimeout(resolve, 2_000));
        return { armored: `key of ${request.repositoryId}`, fingerprint: 'F', binary: new Uint8Array() };
      },
    } as unknown as SigningServiceImplementation<CallerContext>);
    listening = `127.0.0.1:${await server.listen('127.0.0.1:0')}`;
  });

  afterAll(() => server.shutdown());

  const clientsTo = async (inProcess: boolean, deadlineMs = 5_000) => {
    // free: nothing listens there
    const nobody = `127.0.0.1:${await freePort()}`;
    return createGrpcClients({
      registry: new Registry(),
      deadlineMs,
      assertions,
      // in process, the only address is one nothing answers at: a call that took the network would fail
      addressesOf: () => [inProcess ? nobody : listening],
      local: () => (inProcess ? local : undefined),
    });
  };

  it('reaches a module this process serves without the network, with the caller its assertion vouches for and a copy of the request', async () => {
    const signing = (await clientsTo(true)).client(SigningServiceDefinition, 'signing');
    const request = { repositoryId: 'r' };
    expect(await signing.getPublicKey(request, { caller: serviceCaller('artifact') })).toMatchObject({ armored: 'key of r' });
    const handled = seen.at(-1)!;
    expect(handled.caller).toMatchObject({ userId: 'service:artifact', kind: 'service' });
    expect(handled.request).toEqual(request);
    expect(handled.request).not.toBe(request);
  });

  it('ends each call as the network does: a missing caller, a domain error and a bug give the same errors in process', async () => {
    const calls = (signing: PackyardClient<typeof SigningServiceDefinition>) =>
      Promise.all([
        outcome(signing.getPublicKey({ repositoryId: 'no caller' })),
        outcome(signing.getPublicKey({ repositoryId: 'refused' }, { caller: serviceCaller('artifact') })),
        outcome(signing.getPublicKey({ repositoryId: 'broken' }, { caller: serviceCaller('artifact') })),
      ]);
    const overNetwork = await calls((await clientsTo(false)).client(SigningServiceDefinition, 'signing'));
    const inProcess = await calls((await clientsTo(true)).client(SigningServiceDefinition, 'signing'));
    expect(overNetwork).toEqual([
      expect.objectContaining({ kind: 'UNAUTHENTICATED' }),
      { kind: 'INVALID', code: 'PACKYARD_TEST_REFUSED', message: 'This repository is refused' },
      expect.objectContaining({ kind: 'INTERNAL', message: 'Internal error' }),
    ]);
    expect(inProcess).toEqual(overNetwork);
  });

  it('gives up on a call at its deadline, and refuses new calls once the server drains', async () => {
    const signing = (await clientsTo(true, 200)).client(SigningServiceDefinition, 'signing');
    const started = performance.now();
    expect(await outcome(signing.getPublicKey({ repositoryId: 'slow' }, { caller: serviceCaller('artifact') }))).toMatchObject({ kind: 'TIMEOUT', code: 'PACKYARD_GRPC_DEADLINE_EXCEEDED' });
    expect(performance.now() - started).toBeLessThan(1_500);
    await local.drain();
    expect(await outcome(signing.getPublicKey({ repositoryId: 'r' }, { caller: serviceCaller('artifact') }))).toMatchObject({ kind: 'UNAVAILABLE' });
  });
});
