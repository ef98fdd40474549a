import type { BusMessage, Reaction } from '@packyard/platform';
import type { RepositoryCreated, RepositoryPurged } from '@packyard/proto/packyard/repository/v1/events';
import type { KeyRing } from '../keys/key-ring';

/**
 * RepositoryCreated → generate the repository's key right away (3–7 s), so it is ready
 * when the first index is signed; RepositoryPurged → destroy it (a deleted repository keeps
 * its keys through the grace period, for a restoration). Both are idempotent.
 */
export const repositoryEventsReaction = (keys: KeyRing): Reaction => ({
  contexts: ['repository'],
  async handle(message: BusMessage) {
    if (message.type === 'RepositoryCreated') {
      const data = message.data as RepositoryCreated;
      await keys.ensureKey(data.repositoryId, {
        name: `Packyard ${data.workspaceSlug}/${data.name}`,
        email: `repository-${data.repositoryId}@packyard.invalid`,
      });
    } else if (message.type === 'RepositoryPurged') {
      await keys.destroy((message.data as RepositoryPurged).repositoryId);
    }
  },
});
