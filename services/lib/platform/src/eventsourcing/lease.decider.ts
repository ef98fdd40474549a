import { assertNever, type Decider } from './decider';

/**
 * A named lease (one writer at a time, e.g. of one repository's publications) as the store
 * keeps it. `epoch` is the fencing token: it grows with every acquisition and never goes
 * back, so a writer that lost its lease is told apart from the one that holds it now.
 */
export interface LeaseState {
  /** empty when released (or never taken) */
  holder: string;
  epoch: number;
  /** ms since 1970; the lease is free from then on */
  expiresAt: number;
}

/** a lease held: what a writer shows to renew, release or fence an append */
export interface Lease {
  name: string;
  holder: string;
  epoch: number;
  expiresAt: number;
}

/** what an append shows so that it is refused once the lease's epoch has moved on */
export type Fence = Pick<Lease, 'name' | 'holder' | 'epoch'>;

export type LeaseCommand =
  | { type: 'Acquire'; holder: string; now: number; ttlMs: number }
  | { type: 'Renew'; name: string; holder: string; epoch: number; now: number; ttlMs: number }
  | { type: 'Release'; holder: string; epoch: number };

export type LeaseEvent =
  | { type: 'LeaseAcquired'; data: LeaseState }
  | { type: 'LeaseRenewed'; data: { expiresAt: number } }
  | { type: 'LeaseReleased'; data: { epoch: number } };

/** Another holder's lease has not expired: the caller tries again later. */
export class LeaseBusyError extends Error {
  constructor(readonly holder: string) {
    super(`Held by ${holder}`);
    this.name = 'LeaseBusyError';
  }
}

/** The writer's lease was taken over (its epoch moved on): nothing it asked for was written. */
export class LeaseLostError extends Error {
  constructor(
    readonly lease: string,
    readonly epoch: number,
    readonly current: LeaseState,
  ) {
    super(`Lease ${lease} at epoch ${epoch} was lost (now epoch ${current.epoch}${current.holder ? `, held by ${current.holder}` : ''})`);
    this.name = 'LeaseLostError';
  }
}

const heldBy = (state: LeaseState, holder: string, epoch: number) => state.holder === holder && state.epoch === epoch;

/**
 * The lease rules, one home for both adapters: a free or expired lease (or one its holder
 * asks for again) is acquired with the next epoch; only its holder at its epoch renews it
 * (an expired lease nobody took is still its own: the epoch did not move); releasing keeps
 * the epoch, so it only ever grows.
 */
export const leaseDecider: Decider<LeaseState, LeaseCommand, LeaseEvent> = {
  initialState: () => ({ holder: '', epoch: 0, expiresAt: 0 }),
  decide(command, state) {
    switch (command.type) {
      case 'Acquire':
        if (state.holder && state.holder !== command.holder && state.expiresAt > command.now) throw new LeaseBusyError(state.holder);
        return [{ type: 'LeaseAcquired', data: { holder: command.holder, epoch: state.epoch + 1, expiresAt: command.now + command.ttlMs } }];
      case 'Renew':
        if (!heldBy(state, command.holder, command.epoch)) throw new LeaseLostError(command.name, command.epoch, state);
        return [{ type: 'LeaseRenewed', data: { expiresAt: command.now + command.ttlMs } }];
      case 'Release':
        // released already, or taken over: nothing of the holder's is left to give back
        return heldBy(state, command.holder, command.epoch) ? [{ type: 'LeaseReleased', data: { epoch: command.epoch } }] : [];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'LeaseAcquired':
        return event.data;
      case 'LeaseRenewed':
        return { ...state, expiresAt: event.data.expiresAt };
      case 'LeaseReleased':
        return { holder: '', epoch: state.epoch, expiresAt: 0 };
      default:
        return assertNever(event);
    }
  },
};

/** the state after the command, or the decider's refusal */
export function decideLease(state: LeaseState, command: LeaseCommand): LeaseState {
  return leaseDecider.decide(command, state).reduce(leaseDecider.evolve, state);
}

/** throws LeaseLostError unless `fence` still holds the lease (its epoch did not move on) */
export function checkFence(fence: Fence, state: LeaseState): void {
  if (!heldBy(state, fence.holder, fence.epoch)) throw new LeaseLostError(fence.name, fence.epoch, state);
}

/**
 * Leases kept beside a module's events, so that an append can be fenced by one in the same
 * transaction. Time is the store's host clock: replicas sharing a store need synchronised
 * clocks (NTP), and a lease should outlast any clock skew by far.
 */
export interface LeaseStore {
  /** the lease taken (with the next epoch), or undefined while another holder's lease runs */
  acquire(name: string, holder: string, ttlMs: number): Promise<Lease | undefined>;
  /** the lease extended; LeaseLostError once another holder took it */
  renew(lease: Lease, ttlMs: number): Promise<Lease>;
  /** gives the lease back at once (nothing happens if it was lost meanwhile) */
  release(lease: Lease): Promise<void>;
  /** the lease as stored (the initial state if it was never taken) */
  read(name: string): Promise<LeaseState>;
}
