// XML 1.0 forbids most C0 control characters even when escaped; rpm headers can hold them.
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const FORBIDDEN_IN_XML = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g;
// eslint-disable-next-line no-control-regex -- as above, plus the characters that need entities
const NEEDS_WORK = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff&<>"]/;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text or double-quoted attribute content, escaped and stripped of characters XML cannot carry. */
export const escapeXml = (value: string): string =>
  // Most values (names, versions, paths) need nothing: one test instead of two rewrites.
  NEEDS_WORK.test(value) ? value.replace(FORBIDDEN_IN_XML, '').replace(/[&<>"]/g, (character) => ENTITIES[character]) : value;
