import { InvalidBlobKeyError, type ByteRange } from './blob-store.port';

const MAX_KEY_LENGTH = 1024;
// printable characters only; no backslash so a key means the same path everywhere
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const SEGMENT = /^[^./\\\u0000-\u001f\u007f][^/\\\u0000-\u001f\u007f]*$/;

/** Refuses keys that could escape the store's root or collide with its temporary files. */
export function assertValidKey(key: string): void {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !key.split('/').every((segment) => SEGMENT.test(segment))) throw new InvalidBlobKeyError(key);
}

/** `<prefix>/sha256/ab/cd/<sha256>`: two fan-out levels keep directories small */
export const contentAddressedKey = (prefix: string, sha256: string) => `${prefix}/sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;

/** the reserved area for uploads in progress; never listed */
export const TEMPORARY_PREFIX = '.tmp/';

/** Checks a range against the blob's size; the end is clamped like HTTP does. */
export function resolveRange(range: ByteRange, size: number): ByteRange {
  if (!Number.isInteger(range.start) || range.start < 0 || range.end < range.start || range.start >= size)
    throw new RangeError(`Range ${range.start}-${range.end} not satisfiable for ${size} bytes`);
  return { start: range.start, end: Math.min(range.end, size - 1) };
}
