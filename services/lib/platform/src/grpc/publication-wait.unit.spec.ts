import { describe, expect, it } from 'vitest';
import { PackyardError } from '../errors/errors';
import type { GrpcClients } from './grpc-clients';
import { waitUntilServed } from './publication-wait';

const generations = [{ distribution: 'debian/bookworm', generation: 4 }];

/** the repository module answers each wait call with the next of `answers` (an error is thrown); one delivery replica serves at once */
function clientsAnswering(answers: ({ published: boolean } | PackyardError)[]): { clients: GrpcClients; calls: () => number } {
  let calls = 0;
  const publishing = {
    waitForPublication: async () => {
      const answer = answers[Math.min(calls++, answers.length - 1)];
      if (answer instanceof PackyardError) throw answer;
      return { ...answer, generations: answer.published ? generations : [] };
    },
  };
  const delivery = { waitForGenerations: async () => ({ served: true }) };
  return { clients: { client: () => publishing, replicaClients: () => [delivery], close: () => undefined } as unknown as GrpcClients, calls: () => calls };
}

const caller = { kind: 'service', module: 'gateway' } as never;

describe('waitUntilServed', () => {
  it('asks the repository module again when a wait call ran into its deadline or found it unreachable, instead of failing the upload', async () => {
    const late = new PackyardError('TIMEOUT', 'PACKYARD_GRPC_DEADLINE_EXCEEDED', 'repository.waitForPublication did not answer within 10000 ms');
    const away = new PackyardError('UNAVAILABLE', 'PACKYARD_GRPC_UNAVAILABLE', 'repository.waitForPublication: connection refused');
    const { clients, calls } = clientsAnswering([late, away, { published: true }]);
    await expect(waitUntilServed(clients, 'repo-1', 'pkg-1', caller, 5_000)).resolves.toBe(true);
    expect(calls()).toBe(3);
  });

  it('answers "not yet" once the whole wait is over while the module keeps answering late', async () => {
    const { clients } = clientsAnswering([new PackyardError('TIMEOUT', 'PACKYARD_GRPC_DEADLINE_EXCEEDED', 'late')]);
    await expect(waitUntilServed(clients, 'repo-1', 'pkg-1', caller, 600)).resolves.toBe(false);
  });

  it('passes other errors on: a refused call is not a wait', async () => {
    const { clients } = clientsAnswering([new PackyardError('FORBIDDEN', 'PACKYARD_AUTH_FORBIDDEN', 'no')]);
    await expect(waitUntilServed(clients, 'repo-1', 'pkg-1', caller, 5_000)).rejects.toMatchObject({ kind: 'FORBIDDEN' });
  });
});
