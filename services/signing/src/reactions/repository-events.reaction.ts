import type { Logger } from 'pino';
import { decodeEvent, type BusMessage, type Reaction } from '@packyard/platform';
import { RepositoryCreated, RepositoryPurged } from '@packyard/proto/packyard/repository/v1/events';
import type { KeyGenerations } from '../keys/key-generations';
import type { KeyRing } from '../keys/key-ring';

const FOLLOWED = { RepositoryCreated, RepositoryPurged };

/**
 * RepositoryCreated → generate the repository's key right away (3–7 s), so it is ready
 * when the first index is signed; RepositoryPurged → destroy it (a deleted repository keeps
 * its keys through the grace period, for a restoration). Both are idempotent.
 * Generations run side by side (`generations`): the event is done once its key is being
 * made. A generation lost to a crash or a stop, or one that failed, is made by the
 * repository's first Sign instead (KeyRing.keys), and a purge that overtakes a generation
 * wins: the key registered after it is refused (signing-key.decider).
 */
export const repositoryEventsReaction = (keys: KeyRing, generations: KeyGenerations, logger: Logger): Reaction => ({
  contexts: ['repository'],
  async handle(message: BusMessage) {
    const event = decodeEvent(message, FOLLOWED);
    if (event?.type === 'RepositoryCreated') {
      const { repositoryId, workspaceSlug, name } = event.data;
      const identity = { name: `Packyard ${workspaceSlug}/${name}`, email: `repository-${repositoryId}@packyard.invalid` };
      const began = await generations.start(() =>
        keys.ensureKey(repositoryId, identity).catch((error: unknown) => logger.error({ err: error, repositoryId }, 'generating the repository key failed; its first signature makes it')),
      );
      if (!began) logger.debug({ repositoryId }, 'stopping: the repository key is made by its first signature');
    } else if (event?.type === 'RepositoryPurged') {
      await keys.destroy(event.data.repositoryId);
    }
  },
});
