import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { signingKeyDecider } from './signing-key.decider';
import type { SigningKeyCreated } from './signing-key.events';

const created: SigningKeyCreated = {
  type: 'SigningKeyCreated',
  data: { repositoryId: 'r1', fingerprint: 'F1', publicKeyArmored: 'PUB', sealedPrivateKey: 'v1.sealed', algorithm: 'rsa4096', createdAt: '2026-01-01T00:00:00.000Z' },
};
const register = { type: 'RegisterKey', repositoryId: 'r1', fingerprint: 'F1', publicKeyArmored: 'PUB', sealedPrivateKey: 'v1.sealed', now: '2026-01-01T00:00:00.000Z' } as const;
const spec = deciderSpec(signingKeyDecider);

describe('signing key decider', () => {
  it('registers the first key of a repository', () => spec.given([]).when(register).then([created]));

  it('keeps one key for the life of a repository', () => spec.given([created]).when({ ...register, fingerprint: 'F2' }).thenThrows(/already has a signing key/));

  it('destroys a key once', () => {
    const destroyed = { type: 'SigningKeyDestroyed', data: { repositoryId: 'r1', destroyedAt: '2026-01-02T00:00:00.000Z' } } as const;
    spec.given([created]).when({ type: 'DestroyKey', repositoryId: 'r1', now: '2026-01-02T00:00:00.000Z' }).then([destroyed]);
    spec.given([created, destroyed]).when({ type: 'DestroyKey', repositoryId: 'r1', now: '2026-01-03T00:00:00.000Z' }).then([]);
  });
});
