/**
 * A map of at most `capacity` entries: reading or writing an entry makes it the most
 * recently used, and adding one past the capacity drops the least recently used (what an
 * in-memory cache of per-tenant data needs so that its size follows the capacity, not the
 * number of tenants).
 */
export class RecentlyUsed<K, V> {
  private readonly entries = new Map<K, V>();
  /** the most recently used key: asked for again (a build asks once per package), the order stays as it is without a delete and a set */
  private newest: K | undefined;

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new Error(`capacity must be at least 1, not ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined && key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, value);
      this.newest = key;
    }
    return value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.newest = key;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.capacity) break;
      this.entries.delete(oldest);
    }
    return this;
  }

  delete(key: K): boolean {
    if (key === this.newest) this.newest = undefined;
    return this.entries.delete(key);
  }
}
