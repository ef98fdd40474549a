/** below this size JSON is parsed at once: a lazy property costs more than parsing a small event */
const LAZY_FROM_CHARACTERS = 64 * 1024;

/** the JSON text of a lazy `data` that nobody has read yet */
const unreadJson = new WeakMap<object, string>();

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
  unreadJson.set(fields, json);
  return Object.defineProperty(fields, 'data', {
    configurable: true,
    enumerable: true,
    get(this: T) {
      const data: unknown = JSON.parse(json);
      unreadJson.delete(this);
      Object.defineProperty(this, 'data', { value: data, enumerable: true });
      return data;
    },
  }) as T & { data: unknown };
}

/** `fields` with the data of `source`, its JSON text passed on unparsed when it has one (the outbox relay) */
export function withDataOf<T extends object>(fields: T, source: { data: unknown }): T & { data: unknown } {
  const json = unreadJson.get(source);
  if (json !== undefined) return withLazyData(fields, json);
  const withData = fields as T & { data: unknown };
  withData.data = source.data;
  return withData;
}

/** the data as JSON text: the text it came from while unread, else serialised */
export const dataJson = (value: { data?: unknown }): string => unreadJson.get(value) ?? JSON.stringify(value.data ?? null);
