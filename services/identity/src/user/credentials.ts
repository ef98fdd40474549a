import { invalid } from '@packyard/platform';
import { normalizeEmail } from './email-claim.decider';

export const PASSWORD_MIN = 6;
/** argon2 accepts any length; the cap keeps one request from costing more than a sign-in should */
export const PASSWORD_MAX = 1024;
const EMAIL_MAX = 254;
// one @, a dot in the domain; none of RFC 5322's specials (quoted local parts are not
// taken), no white space, no control or format characters (bidi overrides, NUL)
const LOCAL_PART = String.raw`[^\s@<>()[\]\\,;:"\p{Cc}\p{Cf}]+`;
const DOMAIN_LABEL = String.raw`[^\s@<>()[\]\\,;:".\p{Cc}\p{Cf}]+`;
const EMAIL_PATTERN = new RegExp(`^${LOCAL_PART}@${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})+$`, 'u');

/** the address as stored: normalised (`normalizeEmail`), or a 400 */
export function validateEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (normalized === '') throw invalid('PACKYARD_IDENTITY_EMAIL_REQUIRED', 'Email is required');
  if (normalized.length > EMAIL_MAX || !EMAIL_PATTERN.test(normalized)) throw invalid('PACKYARD_IDENTITY_EMAIL_INVALID', 'Email must be a valid email address');
  return normalized;
}

/** the spec's create-account rule, enforced by the server too */
export function validateNewPassword(password: string) {
  if (password.length < PASSWORD_MIN) throw invalid('PACKYARD_IDENTITY_PASSWORD_TOO_SHORT', `Password must be at least ${PASSWORD_MIN} characters long`);
  if (password.length > PASSWORD_MAX) throw invalid('PACKYARD_IDENTITY_PASSWORD_TOO_LONG', `Password must be at most ${PASSWORD_MAX} characters long`);
}
