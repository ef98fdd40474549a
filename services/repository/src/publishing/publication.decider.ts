import { assertNever, type Decider } from '@packyard/platform';
import type { IndexFile, IndexPublished as IndexPublishedData } from '@packyard/proto/packyard/repository/v1/events';
import type { PublicationEvent } from './publication.events';

/**
 * Generations kept readable after they stop being current (DESIGN §4: a grace period for
 * clients mid-update): the three before the current one in any case, and any replaced less
 * than RETAIN_REPLACED_MS ago, up to MAX_RETAINED_GENERATIONS. By count alone, a burst of
 * publications (or a delivery replica catching up on them after a restart) retired a
 * generation while apt was between its InRelease and the by-hash files it names; apt then
 * fell back to the canonical path, got the newer file and failed "File has unexpected size
 * … Mirror sync in progress?" (the cluster e2e, once).
 */
export const RETAINED_GENERATIONS = 3;
export const RETAIN_REPLACED_MS = 5 * 60_000;
export const MAX_RETAINED_GENERATIONS = 8;

export interface PublicationState {
  /** the highest generation built so far */
  lastGeneration: number;
  /** published generations, newest first, with when each was published: the current one and the retained ones */
  published: { generation: number; publishedAt: string }[];
  /** what the current generation was built from (IndexPublished.inputsDigest) */
  currentInputs?: string;
}

/** a generation whose files and signatures are all stored: recorded and made current */
export interface PublicationCommand {
  type: 'Publish';
  /** the metadata files, named by the content addresses they are stored at */
  built: { files: IndexFile[]; at: string };
  /** the signatures over exactly those bytes */
  signed: { files: IndexFile[]; keyFingerprint: string; at: string };
  publication: Omit<IndexPublishedData, 'generation' | 'retainedGenerations'>;
}

/** the generations that stay readable once a new one is published at `now`: each was replaced when the next newer one was published */
function retained(published: PublicationState['published'], now: string): number[] {
  const replacedAt = (index: number) => Date.parse(index === 0 ? now : published[index - 1].publishedAt);
  return published
    .filter((_, index) => index < RETAINED_GENERATIONS || Date.parse(now) - replacedAt(index) < RETAIN_REPLACED_MS)
    .slice(0, MAX_RETAINED_GENERATIONS)
    .map(({ generation }) => generation);
}

/**
 * Publish in Pulp's phases, recorded together: a generation's files are stored (IndexBuilt),
 * signed (IndexSigned) and made current (IndexPublished, which also says which older
 * generations stay readable) in one append, once every write and the signing have succeeded,
 * so no generation is ever recorded half made. Logs written before kept the phases apart: a
 * generation built there and never published is skipped by the next one.
 */
export const publicationDecider: Decider<PublicationState, PublicationCommand, PublicationEvent> = {
  initialState: () => ({ lastGeneration: 0, published: [] }),
  decide({ built, signed, publication }, state) {
    const generation = state.lastGeneration + 1;
    const { repositoryId, targetDistribution } = publication;
    return [
      { type: 'IndexBuilt', data: { repositoryId, targetDistribution, generation, files: built.files, builtAt: built.at } },
      { type: 'IndexSigned', data: { repositoryId, targetDistribution, generation, files: signed.files, signedAt: signed.at, keyFingerprint: signed.keyFingerprint } },
      { type: 'IndexPublished', data: { ...publication, generation, retainedGenerations: retained(state.published, publication.publishedAt) } },
    ];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'IndexBuilt':
        return { ...state, lastGeneration: event.data.generation };
      case 'IndexSigned':
        return state;
      case 'IndexPublished':
        return {
          lastGeneration: state.lastGeneration,
          published: [{ generation: event.data.generation, publishedAt: event.data.publishedAt }, ...state.published].slice(0, MAX_RETAINED_GENERATIONS + 1),
          currentInputs: event.data.inputsDigest,
        };
      default:
        return assertNever(event);
    }
  },
};
