import { decodeEvent, type BusMessage, type Reaction } from '@packyard/platform';
import { RepositoryCreated, RepositoryPurged } from '@packyard/proto/packyard/repository/v1/events';
import type { KeyRing } from '../keys/key-ring';

const FOLLOWED = { RepositoryCreated, RepositoryPurged };

/**
 * RepositoryCreated → generate the repository's key right away (3–7 s), so it is ready
 * when the first index is signed; RepositoryPurged → destroy it (a deleted repository keeps
 * its keys through the grace period, for a restoration). Both are idempotent.
 */
export const repositoryEventsReaction = (keys: KeyRing): Reaction => ({
  contexts: ['repository'],
  async handle(message: BusMessage) {
    const event = decodeEvent(message, FOLLOWED);
    if (event?.type === 'RepositoryCreated') {
      const { data } = event;
      await keys.ensureKey(data.repositoryId, {
        name: `Packyard ${data.workspaceSlug}/${data.name}`,
        email: `repository-${data.repositoryId}@packyard.invalid`,
      });
    } else if (event?.type === 'RepositoryPurged') {
      await keys.destroy(event.data.repositoryId);
    }
  },
});
