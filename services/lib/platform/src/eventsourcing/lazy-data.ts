/** below this size JSON is parsed at once: a lazy property costs more than parsing a small event */
const LAZY_FROM_CHARACTERS = 64 * 1024;

/**
 * `fields` with a `data` property parsed from `json`; a large one on first read. An event
 * or message is read by every subscription of its log, and those that skip its type never
 * parse it: an IndexPublished of 10,000 packages is 2.5 MB of JSON.
 */
export function withLazyData<T extends object>(fields: T, json: string): T & { data: unknown } {
  if (json.length < LAZY_FROM_CHARACTERS) {
    const parsed = fields as T & { data: unknown };
    parsed.data = JSON.parse(json);
    return parsed;
  }
  return Object.defineProperty(fields, 'data', {
    configurable: true,
    enumerable: true,
    get(this: T) {
      const data: unknown = JSON.parse(json);
      Object.defineProperty(this, 'data', { value: data, enumerable: true });
      return data;
    },
  }) as T & { data: unknown };
}
