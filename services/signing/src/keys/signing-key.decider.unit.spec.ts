import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { signingKeyDecider } from './signing-key.decider';
import type { SigningKeyCreated, SigningKeyRolled } from './signing-key.events';

const key = (fingerprint: string, createdAt: string) => ({
  fingerprint, publicKeyArmored: `PUB-${fingerprint}`, sealedPrivateKey: `v1.sealed-${fingerprint}`, createdAt, expiresAt: '2028-01-01T00:00:00.000Z',
});
const created: SigningKeyCreated = {
  type: 'SigningKeyCreated',
  data: { repositoryId: 'r1', ...key('F1', '2026-01-01T00:00:00.000Z'), algorithm: 'rsa4096' },
};
const register = { type: 'RegisterKey', repositoryId: 'r1', key: key('F1', '2026-01-01T00:00:00.000Z'), now: '2026-01-01T00:00:00.000Z' } as const;
const roll = {
  type: 'RollKey', repositoryId: 'r1', key: key('F2', '2026-06-01T00:00:00.000Z'), overlapUntil: '2026-06-15T00:00:00.000Z', reason: 'manual', now: '2026-06-01T00:00:00.000Z',
} as const;
const rolled: SigningKeyRolled = {
  type: 'SigningKeyRolled',
  data: { repositoryId: 'r1', ...key('F2', '2026-06-01T00:00:00.000Z'), algorithm: 'rsa4096', previousFingerprint: 'F1', overlapUntil: '2026-06-15T00:00:00.000Z', reason: 'manual' },
};
const spec = deciderSpec(signingKeyDecider);

describe('signing key decider', () => {
  it('registers the first key of a repository and announces it as the public key to serve', () =>
    spec.given([]).when(register).then([created, { type: 'PublicKeysChanged', data: { repositoryId: 'r1', publicKeysArmored: ['PUB-F1'], changedAt: register.now } }]));

  it('registers a repository’s first key only once', () => spec.given([created]).when({ ...register, key: key('F9', register.now) }).thenThrows(/already has a signing key/));

  it('rolls to a new key that signs beside the previous one until the overlap ends', () =>
    spec.given([created]).when(roll).then([
      rolled,
      { type: 'SigningKeysChanged', data: { repositoryId: 'r1', signingFingerprints: ['F2', 'F1'], changedAt: roll.now } },
      { type: 'PublicKeysChanged', data: { repositoryId: 'r1', publicKeysArmored: ['PUB-F2', 'PUB-F1'], changedAt: roll.now } },
    ]));

  it('refuses a second roll while the first one’s overlap lasts, and an overlap ending before it starts', () => {
    spec.given([created, rolled]).when({ ...roll, key: key('F3', roll.now) }).thenThrows(/already being rolled/);
    spec.given([created]).when({ ...roll, overlapUntil: '2026-05-01T00:00:00.000Z' }).thenThrows(/must not end before it starts/);
  });

  it('retires the previous key once, after which only the new key signs', () => {
    const now = '2026-06-15T00:00:01.000Z';
    const retired = { type: 'SigningKeyRetired', data: { repositoryId: 'r1', fingerprint: 'F1', retiredAt: now } } as const;
    spec.given([created, rolled]).when({ type: 'RetirePreviousKey', repositoryId: 'r1', now }).then([retired, { type: 'SigningKeysChanged', data: { repositoryId: 'r1', signingFingerprints: ['F2'], changedAt: now } }]);
    spec.given([created, rolled, retired]).when({ type: 'RetirePreviousKey', repositoryId: 'r1', now }).then([]);
  });

  it('destroys a key once', () => {
    const destroyed = { type: 'SigningKeyDestroyed', data: { repositoryId: 'r1', destroyedAt: '2026-01-02T00:00:00.000Z' } } as const;
    spec.given([created]).when({ type: 'DestroyKey', repositoryId: 'r1', now: '2026-01-02T00:00:00.000Z' }).then([destroyed]);
    spec.given([created, destroyed]).when({ type: 'DestroyKey', repositoryId: 'r1', now: '2026-01-03T00:00:00.000Z' }).then([]);
    // a purge that overtook the repository's first key generation: the key made after it is not registered
    spec.given([destroyed]).when(register).thenThrows(/already has a signing key/);
  });
});
