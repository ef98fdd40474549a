import { invalid } from '@packyard/platform';

export const TOKEN_NAME_MAX_LENGTH = 100;

/** the spec's rule for both kinds of token: trimmed, non-empty */
export function validTokenName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid('PACKYARD_TOKEN_NAME_REQUIRED', 'Token name is required', { field: 'name' });
  if (name.length > TOKEN_NAME_MAX_LENGTH) {
    throw invalid('PACKYARD_TOKEN_NAME_TOO_LONG', `Token name must be at most ${TOKEN_NAME_MAX_LENGTH} characters`, { field: 'name' });
  }
  return name;
}
