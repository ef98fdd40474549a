import type { Collection } from '@packyard/platform';
import { packageRecordId, type PackageRecord } from '../catalog/delivery.projection';

/**
 * Which package a stored file is, for counting its downloads: a lookup by id in delivery's
 * read model (its PACKAGES records), the answers kept in a bounded cache, least recently
 * used out first. Nothing is read at start; an unknown file is not remembered, so a
 * PackageUploaded that reaches delivery later is found on the next drain.
 */
export class PackageIds {
  private readonly cache = new Map<string, string>();

  constructor(
    private readonly packages: Pick<Collection<PackageRecord>, 'get'>,
    private readonly maxEntries: number,
  ) {}

  async of(repositoryId: string, sha256: string): Promise<string | undefined> {
    const id = packageRecordId(repositoryId, sha256);
    const cached = this.cache.get(id);
    if (cached !== undefined) {
      this.cache.delete(id);
      this.cache.set(id, cached);
      return cached;
    }
    const record = await this.packages.get(id);
    if (!record) return undefined;
    this.cache.set(id, record.packageId);
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    return record.packageId;
  }

  /** the projection changed what the file is (deleted, or uploaded again) */
  forget(recordId: string): void {
    this.cache.delete(recordId);
  }
}
