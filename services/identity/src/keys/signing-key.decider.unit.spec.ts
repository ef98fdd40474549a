import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { signingKeyDecider, type CreateSigningKey } from './signing-key.decider';

const create = (kid: string): CreateSigningKey => ({ type: 'CreateSigningKey', kid, publicJwk: { kty: 'EC', kid }, sealedPrivateJwk: `v1.${kid}`, at: '2025-01-01T00:00:00.000Z' });
const spec = deciderSpec(signingKeyDecider);

describe('ID token signing key decider', () => {
  it('stores the first key', () =>
    spec.given([]).when(create('k1')).then([{ type: 'SigningKeyCreated', data: { kid: 'k1', publicJwk: { kty: 'EC', kid: 'k1' }, sealedPrivateJwk: 'v1.k1', createdAt: '2025-01-01T00:00:00.000Z' } }]));

  it('keeps the stored key when a replica that lost the race offers its own', () =>
    spec
      .given([{ type: 'SigningKeyCreated', data: { kid: 'k1', publicJwk: { kty: 'EC' }, sealedPrivateJwk: 'v1.k1', createdAt: '2025-01-01T00:00:00.000Z' } }])
      .when(create('k2'))
      .then([]));
});
