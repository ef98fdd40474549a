import { assertNever, invalid, notFound, type Decider } from '@packyard/platform';
import { validTokenName } from './token-name';
import type { AccessTokenEvent } from './token.events';

export const SCOPES = ['read', 'publish', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** An account access token: a bearer for the API (and, with read, for apt/dnf); shown once, kept as a hash. */
export type AccessToken = { status: 'none' } | { status: 'active'; ownerId: string } | { status: 'revoked' };

export type AccessTokenCommand =
  | { type: 'CreateAccessToken'; tokenId: string; ownerId: string; name: string; scopes: string[]; repositoryId: string; valueHash: string; now: string }
  | { type: 'RevokeAccessToken'; tokenId: string; now: string }
  | { type: 'RecordAccessTokenUse'; tokenId: string; now: string };

/** the scopes asked for, deduplicated in a fixed order; at least one, each one of SCOPES */
export function validScopes(scopes: string[]): Scope[] {
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length) throw invalid('PACKYARD_TOKEN_INVALID_SCOPE', `Unknown scope "${unknown[0]}"; scopes are read, publish and admin`, { field: 'scopes' });
  const chosen = SCOPES.filter((scope) => scopes.includes(scope));
  if (!chosen.length) throw invalid('PACKYARD_TOKEN_SCOPE_REQUIRED', 'Select at least one scope', { field: 'scopes' });
  return chosen;
}

export const accessTokenDecider: Decider<AccessToken, AccessTokenCommand, AccessTokenEvent> = {
  initialState: () => ({ status: 'none' }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateAccessToken': {
        const name = validTokenName(command.name);
        const scopes = validScopes(command.scopes);
        if (state.status !== 'none') return [];
        const { tokenId, ownerId, repositoryId, valueHash, now } = command;
        return [{ type: 'AccessTokenCreated', data: { tokenId, ownerId, name, scopes, repositoryId, valueHash, createdAt: now } }];
      }
      case 'RevokeAccessToken':
        if (state.status === 'none') throw notFound('PACKYARD_TOKEN_NOT_FOUND', 'Token not found');
        if (state.status === 'revoked') return [];
        return [{ type: 'AccessTokenRevoked', data: { tokenId: command.tokenId, ownerId: state.ownerId, revokedAt: command.now } }];
      case 'RecordAccessTokenUse':
        // a use racing the revocation is not worth recording
        return state.status === 'active' ? [{ type: 'AccessTokenUsed', data: { tokenId: command.tokenId, usedAt: command.now } }] : [];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'AccessTokenCreated':
        return { status: 'active', ownerId: event.data.ownerId };
      case 'AccessTokenRevoked':
        return { status: 'revoked' };
      case 'AccessTokenUsed':
        return state;
      default:
        return assertNever(event);
    }
  },
};
