// HTTP semantics of a static file as a CDN needs them (RFC 9110 §13 conditionals, §14
// ranges), as a pure decision over the request's headers and the file's validators. The
// edge only executes the decision, so every rule here is tested with plain data.

export interface FileValidators {
  /** strong entity tag, quoted, e.g. `"9f86d0..."` */
  etag: string;
  /** milliseconds since the epoch, whole seconds (HTTP dates have no finer resolution) */
  lastModifiedMs: number;
  size: number;
}

export interface RequestConditions {
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  range?: string;
  ifRange?: string;
}

export type ResponsePlan =
  | { status: 200 }
  | { status: 304 }
  | { status: 206; start: number; end: number }
  | { status: 416 };

/** `If-None-Match: "a", W/"b"` → whether any listed tag matches (weak comparison, §13.1.2). */
function noneMatchHits(header: string, etag: string): boolean {
  // what apt, dnf and caches send back: the one tag they were given, as it was given
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  for (const raw of header.split(',')) {
    const tag = raw.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

/**
 * One `bytes=first-last` / `bytes=first-` / `bytes=-suffix` range. Several ranges are
 * answered with the whole file (a server may ignore Range; multipart bodies buy apt and
 * dnf nothing). Returns undefined for a header to ignore, 'unsatisfiable' for 416.
 */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

const httpDateMs = (value: string): number => Date.parse(value);

/** If-Range holds when it names the current strong ETag or exactly the Last-Modified date. */
function ifRangeHolds(value: string, file: FileValidators): boolean {
  const trimmed = value.trim();
  if (trimmed.startsWith('"') || trimmed.startsWith('W/')) return trimmed === file.etag;
  const date = httpDateMs(trimmed);
  return !Number.isNaN(date) && date === file.lastModifiedMs;
}

// the plans without a range, shared: a revalidation answered 304 allocates no plan
export const WHOLE_FILE: ResponsePlan = { status: 200 };
const NOT_MODIFIED: ResponsePlan = { status: 304 };
const UNSATISFIABLE: ResponsePlan = { status: 416 };

/** What to answer a GET or HEAD for `file` (authorization already granted). */
export function planResponse(conditions: RequestConditions, file: FileValidators): ResponsePlan {
  // If-None-Match wins over If-Modified-Since when both are present (§13.2.2).
  if (conditions.ifNoneMatch !== undefined) {
    if (noneMatchHits(conditions.ifNoneMatch, file.etag)) return NOT_MODIFIED;
  } else if (conditions.ifModifiedSince !== undefined) {
    const since = httpDateMs(conditions.ifModifiedSince);
    if (!Number.isNaN(since) && file.lastModifiedMs <= since) return NOT_MODIFIED;
  }
  if (conditions.range === undefined) return WHOLE_FILE;
  if (conditions.ifRange !== undefined && !ifRangeHolds(conditions.ifRange, file)) return WHOLE_FILE;
  const range = parseRange(conditions.range, file.size);
  if (range === undefined) return WHOLE_FILE;
  if (range === 'unsatisfiable') return UNSATISFIABLE;
  return { status: 206, ...range };
}

/** `"<sha256>"`: content-derived, so every replica and generation agrees on it. */
export const strongEtag = (sha256: string): string => `"${sha256}"`;

/** RFC 1123 date in GMT, as Last-Modified wants it. */
export const httpDate = (ms: number): string => new Date(ms).toUTCString();
