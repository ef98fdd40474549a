import { assertNever, notFound, type Decider } from '@packyard/platform';
import { validTokenName } from './token-name';
import type { RepoTokenEvent } from './token.events';

/** A repository token: lets apt/dnf read one repository; revealable, so its value is sealed, not hashed only. */
export type RepoToken = { status: 'none' } | { status: 'active'; repositoryId: string; ownerId: string } | { status: 'revoked' };

export type RepoTokenCommand =
  | { type: 'CreateRepoToken'; tokenId: string; repositoryId: string; ownerId: string; name: string; sealedValue: string; valueHash: string; now: string }
  | { type: 'RevokeRepoToken'; tokenId: string; now: string }
  | { type: 'RecordRepoTokenReveal'; tokenId: string; accessTokenId: string; now: string };

export const repoTokenDecider: Decider<RepoToken, RepoTokenCommand, RepoTokenEvent> = {
  initialState: () => ({ status: 'none' }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateRepoToken': {
        const name = validTokenName(command.name);
        if (state.status !== 'none') return [];
        const { tokenId, repositoryId, ownerId, sealedValue, valueHash, now } = command;
        return [{ type: 'RepoTokenCreated', data: { tokenId, repositoryId, ownerId, name, sealedValue, valueHash, createdAt: now } }];
      }
      case 'RevokeRepoToken':
        if (state.status === 'none') throw notFound('PACKYARD_TOKEN_NOT_FOUND', 'Token not found');
        // revoking twice (a user's delete racing a repository deletion) changes nothing
        if (state.status === 'revoked') return [];
        return [{ type: 'RepoTokenRevoked', data: { tokenId: command.tokenId, repositoryId: state.repositoryId, ownerId: state.ownerId, revokedAt: command.now } }];
      case 'RecordRepoTokenReveal':
        if (state.status !== 'active') throw notFound('PACKYARD_TOKEN_NOT_FOUND', 'Token not found');
        return [{ type: 'RepoTokenRevealed', data: { tokenId: command.tokenId, accessTokenId: command.accessTokenId, revealedAt: command.now } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'RepoTokenCreated':
        return { status: 'active', repositoryId: event.data.repositoryId, ownerId: event.data.ownerId };
      case 'RepoTokenRevoked':
        return { status: 'revoked' };
      case 'RepoTokenRevealed':
        return state;
      default:
        return assertNever(event);
    }
  },
};
