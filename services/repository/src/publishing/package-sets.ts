import { RecentlyUsed, type ReadModelStore } from '@packyard/platform';
import { PUBLISHABLE_PACKAGES, type PackageSetChange } from '../packages/publishable-packages.projection';
import type { PublishablePackage } from '../packages/publishable-package';
import { CACHED_REPOSITORIES } from './generation.builder';

/**
 * The package set of each repository as the publishable-packages projection holds it, in
 * memory for the builds: a repository's set is read from the read model on its first
 * build (never all at start), then follows the projection's changes. The sets of the
 * `capacity` repositories used last are kept; another one is read again when needed.
 */
export class PackageSets {
  private readonly sets: RecentlyUsed<string, Map<string, PublishablePackage>>;
  /** sets being read, with the changes that arrived meanwhile (applied once the read is done) */
  private readonly loading = new Map<string, { done: Promise<Map<string, PublishablePackage>>; changes: PackageSetChange[] }>();

  constructor(
    private readonly readModels: ReadModelStore,
    capacity = CACHED_REPOSITORIES,
  ) {
    this.sets = new RecentlyUsed(capacity);
  }

  async of(repositoryId: string): Promise<PublishablePackage[]> {
    const loaded = this.sets.get(repositoryId) ?? (await this.load(repositoryId));
    return [...loaded.values()];
  }

  /** whether the repository's set (read from the projection if not in memory) holds the package */
  async has(repositoryId: string, packageId: string): Promise<boolean> {
    const loaded = this.sets.get(repositoryId) ?? (await this.load(repositoryId));
    return loaded.has(packageId);
  }

  /** the projection's change; sets not in memory are read whole when first needed */
  apply(change: PackageSetChange): void {
    const repositoryId = change.kind === 'stored' ? change.pkg.repositoryId : change.repositoryId;
    this.loading.get(repositoryId)?.changes.push(change);
    const set = this.sets.get(repositoryId);
    if (change.kind === 'repository-purged') this.sets.delete(repositoryId);
    else if (change.kind === 'stored') set?.set(change.pkg.id, change.pkg);
    else set?.delete(change.packageId);
  }

  private load(repositoryId: string): Promise<Map<string, PublishablePackage>> {
    const pending = this.loading.get(repositoryId);
    if (pending) return pending.done;
    const changes: PackageSetChange[] = [];
    const done = this.readModels
      .collection<PublishablePackage>(PUBLISHABLE_PACKAGES)
      .find({ repositoryId })
      .then((packages) => {
        const set = new Map(packages.map((pkg) => [pkg.id, pkg]));
        // a change seen during the read may or may not be in it: applying it again is idempotent
        for (const change of changes) {
          if (change.kind === 'stored') set.set(change.pkg.id, change.pkg);
          else if (change.kind === 'deleted') set.delete(change.packageId);
          else set.clear();
        }
        this.sets.set(repositoryId, set);
        return set;
      })
      .finally(() => this.loading.delete(repositoryId));
    this.loading.set(repositoryId, { done, changes });
    return done;
  }
}
