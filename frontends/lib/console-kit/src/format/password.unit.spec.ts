import { describe, expect, it } from 'vitest';
import { accountPasswordProblem } from './password';

describe('new password checks (create account, change password)', () => {
  it('reports a mismatch first, then a short password', () => {
    expect(accountPasswordProblem('abcdef', 'abcdeg')).toBe('Passwords do not match');
    expect(accountPasswordProblem('abc', 'abd')).toBe('Passwords do not match');
    expect(accountPasswordProblem('abc', 'abc')).toBe('Password must be at least 6 characters long');
    expect(accountPasswordProblem('abcdef', 'abcdef')).toBeUndefined();
  });
});
