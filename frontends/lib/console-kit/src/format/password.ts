export const MIN_PASSWORD_LENGTH = 6;

/** Spec §5: the create-account checks, in the order the spec gives them; a password change makes the same. */
export function accountPasswordProblem(password: string, confirmation: string): string | undefined {
  if (password !== confirmation) return 'Passwords do not match';
  if (password.length < MIN_PASSWORD_LENGTH) return 'Password must be at least 6 characters long';
  return undefined;
}
