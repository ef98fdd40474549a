import { assertNever, conflict, type Decider } from '@packyard/platform';
import type { SigningKeyEvent } from './signing-key.events';

export type SigningKeyState =
  | { status: 'none' }
  | { status: 'active'; fingerprint: string; publicKeyArmored: string; sealedPrivateKey: string }
  | { status: 'destroyed' };

/** The key material is generated outside (3–7 s of RSA work) and comes in with the command. */
export type SigningKeyCommand =
  | {
      type: 'RegisterKey';
      repositoryId: string;
      fingerprint: string;
      publicKeyArmored: string;
      sealedPrivateKey: string;
      now: string;
    }
  | { type: 'DestroyKey'; repositoryId: string; now: string };

export const signingKeyDecider: Decider<SigningKeyState, SigningKeyCommand, SigningKeyEvent> = {
  initialState: () => ({ status: 'none' }),
  decide(command, state) {
    switch (command.type) {
      case 'RegisterKey':
        // one key per repository for its whole life: a second generation (a redelivered
        // RepositoryCreated racing a Sign call) loses and uses the first key
        if (state.status !== 'none') throw conflict('PACKYARD_SIGNING_KEY_EXISTS', 'The repository already has a signing key');
        return [
          {
            type: 'SigningKeyCreated',
            data: {
              repositoryId: command.repositoryId,
              fingerprint: command.fingerprint,
              publicKeyArmored: command.publicKeyArmored,
              sealedPrivateKey: command.sealedPrivateKey,
              algorithm: 'rsa4096',
              createdAt: command.now,
            },
          },
        ];
      case 'DestroyKey':
        if (state.status === 'destroyed') return [];
        return [{ type: 'SigningKeyDestroyed', data: { repositoryId: command.repositoryId, destroyedAt: command.now } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SigningKeyCreated':
        return {
          status: 'active',
          fingerprint: event.data.fingerprint,
          publicKeyArmored: event.data.publicKeyArmored,
          sealedPrivateKey: event.data.sealedPrivateKey,
        };
      case 'SigningKeyDestroyed':
        return { status: 'destroyed' };
      default:
        return assertNever(event);
    }
  },
};
