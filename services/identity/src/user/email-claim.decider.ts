import { createHash } from 'node:crypto';
import type { Decider, DomainEvent } from '@packyard/platform';

/**
 * One stream per e-mail address makes addresses unique without a read model: the first
 * claim appends to an empty stream (optimistic concurrency settles races), and the
 * stream answers "which account has this address" consistently, with no projection lag.
 * A claim whose account was never written (a crash between the two appends) is picked
 * up again by the next registration with the same address, since it names the same id.
 */
export type ClaimEmail = { type: 'ClaimEmail'; email: string; userId: string; at: string };
export type EmailClaimed = DomainEvent<'EmailClaimed', { email: string; userId: string; at: string }>;
export type EmailClaimState = { status: 'unclaimed' } | { status: 'claimed'; userId: string };

export const emailClaimDecider: Decider<EmailClaimState, ClaimEmail, EmailClaimed> = {
  initialState: () => ({ status: 'unclaimed' }),
  // an address already claimed stays with its account; the caller reads who owns it from the state
  decide: (command, state) =>
    state.status === 'claimed' ? [] : [{ type: 'EmailClaimed', data: { email: command.email, userId: command.userId, at: command.at } }],
  evolve: (_state, event) => ({ status: 'claimed', userId: event.data.userId }),
};

/**
 * One form per address: NFKC folds full-width and other compatibility look-alikes
 * (ａｌｉｃｅ@ → alice@), then case is folded; the stream id hides the address from
 * stream listings.
 */
export const normalizeEmail = (email: string) => email.normalize('NFKC').toLowerCase().normalize('NFKC').trim();
export const emailClaimStream = (email: string) => `email-${createHash('sha256').update(normalizeEmail(email)).digest('hex')}`;
