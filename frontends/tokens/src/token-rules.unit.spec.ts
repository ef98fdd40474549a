import { describe, expect, it } from 'vitest';
import { canCreateToken, DEFAULT_SCOPES, SCOPE_TONES, tokenDeleteConfirmation } from './token-rules';

describe('access token rules', () => {
  it('needs a name and at least one scope', () => {
    expect(canCreateToken('ci', ['read'])).toBe(true);
    expect(canCreateToken('ci', [])).toBe(false);
    expect(canCreateToken('   ', ['admin'])).toBe(false);
  });
  it('starts with read and colours scopes read blue, publish green, admin red', () => {
    expect(DEFAULT_SCOPES).toEqual(['read']);
    expect(SCOPE_TONES).toEqual({ read: 'blue', publish: 'green', admin: 'red' });
  });
  it('asks with the exact confirmation text', () => {
    expect(tokenDeleteConfirmation('deploy')).toBe('Are you sure you want to delete token "deploy"? This action cannot be undone.');
  });
});
