import { runProjection, type EventSourcing, type RunningProjection } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import type { BuildScheduler } from './build-scheduler';
import { followedEvent, purgedRepositoryId } from './followed-events';
import { indexBlobPrefix } from './generation.workflow';

/**
 * RepositoryPurged (the end of a deleted repository's grace period) → its index
 * generations and manifests leave the blob store (its package files are freed by
 * artifact); until then they stay, served again if the repository is restored. Checkpointed like a projection, but
 * outside the module's projections: a build waits for those to catch up, and this waits
 * for the repository's last build to end.
 */
export function startIndexBlobsCleanup(es: EventSourcing, blobs: BlobStore, builds: Pick<BuildScheduler, 'seenUpTo' | 'settled'>): Promise<RunningProjection> {
  return runProjection({
    name: 'index-blobs-cleanup',
    collections: [],
    store: es.events,
    readModels: es.readModels,
    async handle(recorded) {
      const repositoryId = purgedRepositoryId(followedEvent(recorded));
      if (!repositoryId) return;
      // once the scheduler has dropped the repository's work and its build in flight has
      // ended, nothing writes below its prefix any more
      await builds.seenUpTo(recorded.position);
      await builds.settled(repositoryId);
      for await (const key of blobs.list(`${indexBlobPrefix(repositoryId)}/`)) await blobs.delete(key);
    },
  });
}
