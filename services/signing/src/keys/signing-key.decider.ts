import { assertNever, conflict, invalid, type Decider } from '@packyard/platform';
import type { SigningKeyCreated as SigningKeyCreatedData } from '@packyard/proto/packyard/signing/v1/events';
import type { PublicKeysChanged, SigningKeyEvent, SigningKeysChanged } from './signing-key.events';

/** a key as the stream records it (SigningKeyCreated's fields, and SigningKeyRolled's of the same name) */
export type StoredKey = Omit<SigningKeyCreatedData, 'repositoryId'>;

/**
 * `keys` newest first; `keys[0]` is the current key. `previous` is the key it replaced while
 * both sign (until `overlapUntil`); every other key is retired: it signs nothing, but stays
 * served so packages it signed still verify.
 */
export type SigningKeyState =
  | { status: 'none' }
  | { status: 'active'; keys: StoredKey[]; previous?: { fingerprint: string; overlapUntil: string } }
  | { status: 'destroyed' };

/** The key material is generated outside (seconds of RSA work) and comes in with the command. */
export type SigningKeyCommand =
  | { type: 'RegisterKey'; repositoryId: string; key: Omit<StoredKey, 'algorithm'>; now: string }
  | { type: 'RollKey'; repositoryId: string; key: Omit<StoredKey, 'algorithm'>; overlapUntil: string; reason: 'manual' | 'expiry'; now: string }
  | { type: 'RetirePreviousKey'; repositoryId: string; now: string }
  | { type: 'DestroyKey'; repositoryId: string; now: string };

const ALGORITHM = 'rsa4096';

const changed = (repositoryId: string, signingFingerprints: string[], now: string): SigningKeysChanged => ({
  type: 'SigningKeysChanged',
  data: { repositoryId, signingFingerprints, changedAt: now },
});

const publicKeysChanged = (repositoryId: string, keys: readonly Pick<StoredKey, 'publicKeyArmored'>[], now: string): PublicKeysChanged => ({
  type: 'PublicKeysChanged',
  data: { repositoryId, publicKeysArmored: keys.map((key) => key.publicKeyArmored), changedAt: now },
});

export const signingKeyDecider: Decider<SigningKeyState, SigningKeyCommand, SigningKeyEvent> = {
  initialState: () => ({ status: 'none' }),
  decide(command, state) {
    switch (command.type) {
      case 'RegisterKey':
        // the first key of a repository: a second generation (a redelivered RepositoryCreated
        // racing a Sign call) loses and uses the first key
        if (state.status !== 'none') throw conflict('PACKYARD_SIGNING_KEY_EXISTS', 'The repository already has a signing key');
        return [
          { type: 'SigningKeyCreated', data: { repositoryId: command.repositoryId, ...command.key, algorithm: ALGORITHM } },
          publicKeysChanged(command.repositoryId, [command.key], command.now),
        ];
      case 'RollKey': {
        if (state.status !== 'active') throw conflict('PACKYARD_SIGNING_KEY_NOT_ACTIVE', 'The repository has no signing key to roll');
        // one overlap at a time: clients would otherwise need three keys at once
        if (state.previous) throw conflict('PACKYARD_SIGNING_KEY_ROLL_IN_PROGRESS', `The key is already being rolled; the previous key signs until ${state.previous.overlapUntil}`);
        if (command.overlapUntil < command.now) throw invalid('PACKYARD_SIGNING_INVALID_OVERLAP', 'The overlap must not end before it starts');
        const previous = state.keys[0].fingerprint;
        return [
          {
            type: 'SigningKeyRolled',
            data: {
              repositoryId: command.repositoryId, ...command.key, algorithm: ALGORITHM,
              previousFingerprint: previous, overlapUntil: command.overlapUntil, reason: command.reason,
            },
          },
          changed(command.repositoryId, [command.key.fingerprint, previous], command.now),
          // every key stays served (packages it signed must verify), the new one first
          publicKeysChanged(command.repositoryId, [command.key, ...state.keys], command.now),
        ];
      }
      case 'RetirePreviousKey':
        if (state.status !== 'active' || !state.previous) return [];
        return [
          { type: 'SigningKeyRetired', data: { repositoryId: command.repositoryId, fingerprint: state.previous.fingerprint, retiredAt: command.now } },
          changed(command.repositoryId, [state.keys[0].fingerprint], command.now),
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
        return { status: 'active', keys: [storedKey(event.data)] };
      case 'SigningKeyRolled':
        if (state.status !== 'active') return state;
        return { status: 'active', keys: [storedKey(event.data), ...state.keys], previous: { fingerprint: event.data.previousFingerprint, overlapUntil: event.data.overlapUntil } };
      case 'SigningKeyRetired':
        return state.status === 'active' ? { status: 'active', keys: state.keys } : state;
      case 'SigningKeysChanged':
      case 'PublicKeysChanged':
        return state;
      case 'SigningKeyDestroyed':
        return { status: 'destroyed' };
      default:
        return assertNever(event);
    }
  },
};

const storedKey = (data: StoredKey): StoredKey => ({
  fingerprint: data.fingerprint,
  publicKeyArmored: data.publicKeyArmored,
  sealedPrivateKey: data.sealedPrivateKey,
  algorithm: data.algorithm,
  createdAt: data.createdAt,
  expiresAt: data.expiresAt ?? '',
});

/** the keys signing metadata now: the current one, and the previous one during its overlap */
export const signingFingerprints = (state: Extract<SigningKeyState, { status: 'active' }>): string[] =>
  [state.keys[0].fingerprint, ...(state.previous ? [state.previous.fingerprint] : [])];
