/** The workspace slug rules of the console spec §5; the server enforces what the console suggests. */
export const SLUG_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
export const SLUG_HINT = 'Only lowercase letters, numbers, and hyphens allowed';
export const SLUG_MAX_LENGTH = 63;

/** lowercase, trim, keep letters, digits, spaces and hyphens, spaces → one hyphen, no repeated or edge hyphens */
export function deriveSlug(name: string): string {
  return name
    .toLowerCase()
    .trim()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ +/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** the slug asked for, or the one derived from the name when none was given */
export const slugFor = (name: string, slug: string) => slug.trim() || deriveSlug(name);
