import type { Decider, DomainEvent } from '@packyard/platform';

/**
 * The key identity signs ID tokens with is an aggregate of its own, so that it survives
 * restarts and, in a cluster, every replica signs with the same key: the first replica to
 * start appends it; the others' append loses the optimistic-concurrency race, is decided
 * again on the fresh state and adopts the stored key.
 */
export type CreateSigningKey = { type: 'CreateSigningKey'; kid: string; publicJwk: Record<string, unknown>; sealedPrivateJwk: string; at: string };
export type SigningKeyCreated = DomainEvent<'SigningKeyCreated', { kid: string; publicJwk: Record<string, unknown>; sealedPrivateJwk: string; createdAt: string }>;
export type SigningKeyState = { status: 'none' } | { status: 'active'; kid: string; publicJwk: Record<string, unknown>; sealedPrivateJwk: string };

export const signingKeyDecider: Decider<SigningKeyState, CreateSigningKey, SigningKeyCreated> = {
  initialState: () => ({ status: 'none' }),
  decide: (command, state) =>
    state.status === 'active'
      ? []
      : [{ type: 'SigningKeyCreated', data: { kid: command.kid, publicJwk: command.publicJwk, sealedPrivateJwk: command.sealedPrivateJwk, createdAt: command.at } }],
  evolve: (_state, event) => ({ status: 'active', kid: event.data.kid, publicJwk: event.data.publicJwk, sealedPrivateJwk: event.data.sealedPrivateJwk }),
};

export const ID_TOKEN_KEY_STREAM = 'signingkey-id-token';
