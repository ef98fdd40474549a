import { randomBytes } from 'node:crypto';

/** recognisable prefixes, so a leaked value is easy to spot (and to scan repositories for) */
export const REPO_TOKEN_PREFIX = 'pyd_rt_';
export const ACCESS_TOKEN_PREFIX = 'pyd_at_';
const RANDOM_BYTES = 32;

export const newTokenValue = (prefix: string) => `${prefix}${randomBytes(RANDOM_BYTES).toString('base64url')}`;
