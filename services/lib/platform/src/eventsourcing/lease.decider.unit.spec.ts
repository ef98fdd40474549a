import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { checkFence, LeaseBusyError, leaseDecider, LeaseLostError, type LeaseEvent } from './lease.decider';

const spec = deciderSpec(leaseDecider);
const acquired = (holder: string, epoch: number, expiresAt: number): LeaseEvent => ({ type: 'LeaseAcquired', data: { holder, epoch, expiresAt } });
const released = (epoch: number): LeaseEvent => ({ type: 'LeaseReleased', data: { epoch } });
const acquire = (holder: string, now: number) => ({ type: 'Acquire' as const, holder, now, ttlMs: 30 });
const renew = (holder: string, epoch: number, now: number) => ({ type: 'Renew' as const, name: 'publisher-r1', holder, epoch, now, ttlMs: 30 });

describe('lease decider', () => {
  it('gives a lease never taken to its first taker at epoch 1', () => spec.given([]).when(acquire('a', 100)).then([acquired('a', 1, 130)]));

  it('refuses another holder while the lease runs, and lets it take an expired one with the next epoch', () => {
    spec.given([acquired('a', 1, 130)]).when(acquire('b', 129)).thenThrows(LeaseBusyError);
    spec.given([acquired('a', 1, 130)]).when(acquire('b', 130)).then([acquired('b', 2, 160)]);
  });

  it('lets the holder take its own lease again, fencing off what it had in flight under the old epoch', () =>
    spec.given([acquired('a', 1, 130)]).when(acquire('a', 110)).then([acquired('a', 2, 140)]));

  it('renews only for the holder at its epoch, even past expiry while nobody took it over', () => {
    spec.given([acquired('a', 1, 130)]).when(renew('a', 1, 120)).then([{ type: 'LeaseRenewed', data: { expiresAt: 150 } }]);
    spec.given([acquired('a', 1, 130)]).when(renew('a', 1, 200)).then([{ type: 'LeaseRenewed', data: { expiresAt: 230 } }]);
    spec.given([acquired('a', 1, 130), acquired('b', 2, 160)]).when(renew('a', 1, 140)).thenThrows(LeaseLostError);
    spec.given([acquired('a', 1, 130), released(1)]).when(renew('a', 1, 120)).thenThrows(LeaseLostError);
  });

  it('frees a released lease at once and keeps its epoch, so the next taker gets a higher one', () => {
    spec.given([acquired('a', 1, 130)]).when({ type: 'Release', holder: 'a', epoch: 1 }).then([released(1)]);
    spec.given([acquired('a', 1, 130), released(1)]).when(acquire('b', 101)).then([acquired('b', 2, 131)]);
  });

  it('ignores a release by a holder that lost the lease', () =>
    spec.given([acquired('a', 1, 130), acquired('b', 2, 160)]).when({ type: 'Release', holder: 'a', epoch: 1 }).then([]));

  it('lets an append through only for the holder at the current epoch', () => {
    const fence = { name: 'publisher-r1', holder: 'a', epoch: 1 };
    expect(() => checkFence(fence, { holder: 'a', epoch: 1, expiresAt: 130 })).not.toThrow();
    expect(() => checkFence(fence, { holder: 'b', epoch: 2, expiresAt: 160 })).toThrow(LeaseLostError);
    expect(() => checkFence(fence, { holder: '', epoch: 1, expiresAt: 0 })).toThrow(/Lease publisher-r1 at epoch 1 was lost \(now epoch 1\)/);
  });
});
