import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { emailClaimDecider, emailClaimStream } from './email-claim.decider';

const at = '2025-01-01T00:00:00.000Z';
const spec = deciderSpec(emailClaimDecider);

describe('e-mail claim decider', () => {
  it('claims a free address for the account', () =>
    spec.given([]).when({ type: 'ClaimEmail', email: 'ada@example.com', userId: 'u-1', at }).then([
      { type: 'EmailClaimed', data: { email: 'ada@example.com', userId: 'u-1', at } },
    ]));

  it('leaves a claimed address with its account', () =>
    spec
      .given([{ type: 'EmailClaimed', data: { email: 'ada@example.com', userId: 'u-1', at } }])
      .when({ type: 'ClaimEmail', email: 'ada@example.com', userId: 'u-2', at })
      .then([]));

  it('names one stream per address, whatever its case', () => {
    expect(emailClaimStream(' Ada@Example.com ')).toBe(emailClaimStream('ada@example.com'));
    expect(emailClaimStream('ada@example.com')).not.toBe(emailClaimStream('bob@example.com'));
    expect(emailClaimStream('ada@example.com')).not.toContain('ada');
  });
});
