import { invalid } from '@packyard/platform';

export const PASSWORD_MIN = 6;
/** argon2 accepts any length; the cap keeps one request from costing more than a sign-in should */
export const PASSWORD_MAX = 1024;
const EMAIL_MAX = 254;
// pragmatic, as browsers' type="email": one @, no spaces, a dot in the domain
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function validateEmail(email: string): string {
  const trimmed = email.trim();
  if (trimmed === '') throw invalid('PACKYARD_IDENTITY_EMAIL_REQUIRED', 'Email is required');
  if (trimmed.length > EMAIL_MAX || !EMAIL_PATTERN.test(trimmed)) throw invalid('PACKYARD_IDENTITY_EMAIL_INVALID', 'Email must be a valid email address');
  return trimmed.toLowerCase();
}

/** the spec's create-account rule, enforced by the server too */
export function validateNewPassword(password: string) {
  if (password.length < PASSWORD_MIN) throw invalid('PACKYARD_IDENTITY_PASSWORD_TOO_SHORT', `Password must be at least ${PASSWORD_MIN} characters long`);
  if (password.length > PASSWORD_MAX) throw invalid('PACKYARD_IDENTITY_PASSWORD_TOO_LONG', `Password must be at most ${PASSWORD_MAX} characters long`);
}
