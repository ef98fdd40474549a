import type { Distribution } from '@packyard/formats';
import { assertNever, conflict, type Decider } from '@packyard/platform';
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
  /** the generation being published: built, then signed */
  pending?: { generation: number; signed: boolean };
  /** published generations, newest first, with when each was published: the current one and the retained ones */
  published: { generation: number; publishedAt: string }[];
  /** what the current generation was built from (IndexPublished.inputsDigest) */
  currentInputs?: string;
}

export type PublicationCommand =
  | { type: 'RecordBuilt'; repositoryId: string; target: Distribution; files: IndexFile[]; now: string }
  | { type: 'RecordSigned'; repositoryId: string; target: Distribution; generation: number; files: IndexFile[]; keyFingerprint: string; now: string }
  | { type: 'Publish'; generation: number; publication: Omit<IndexPublishedData, 'generation' | 'retainedGenerations'> };

/** the generations that stay readable once a new one is published at `now`: each was replaced when the next newer one was published */
function retained(published: PublicationState['published'], now: string): number[] {
  const replacedAt = (index: number) => Date.parse(index === 0 ? now : published[index - 1].publishedAt);
  return published
    .filter((_, index) => index < RETAINED_GENERATIONS || Date.parse(now) - replacedAt(index) < RETAIN_REPLACED_MS)
    .slice(0, MAX_RETAINED_GENERATIONS)
    .map(({ generation }) => generation);
}

const outOfOrder = (what: string) => conflict('PACKYARD_PUBLICATION_OUT_OF_ORDER', what);

/**
 * Publish in phases (Pulp): a generation's files are stored and recorded (IndexBuilt),
 * signed (IndexSigned), and only then made current in one step (IndexPublished), which
 * also says which older generations stay readable. A newer build supersedes a pending one.
 */
export const publicationDecider: Decider<PublicationState, PublicationCommand, PublicationEvent> = {
  initialState: () => ({ lastGeneration: 0, published: [] }),
  decide(command, state) {
    switch (command.type) {
      case 'RecordBuilt':
        return [
          {
            type: 'IndexBuilt',
            data: { repositoryId: command.repositoryId, targetDistribution: command.target, generation: state.lastGeneration + 1, files: command.files, builtAt: command.now },
          },
        ];
      case 'RecordSigned':
        if (state.pending?.generation !== command.generation || state.pending.signed) throw outOfOrder(`Generation ${command.generation} is not waiting for signatures`);
        return [
          {
            type: 'IndexSigned',
            data: {
              repositoryId: command.repositoryId,
              targetDistribution: command.target,
              generation: command.generation,
              files: command.files,
              signedAt: command.now,
              keyFingerprint: command.keyFingerprint,
            },
          },
        ];
      case 'Publish':
        if (state.pending?.generation !== command.generation || !state.pending.signed) throw outOfOrder(`Generation ${command.generation} is not signed`);
        return [
          {
            type: 'IndexPublished',
            data: { ...command.publication, generation: command.generation, retainedGenerations: retained(state.published, command.publication.publishedAt) },
          },
        ];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'IndexBuilt':
        return { ...state, lastGeneration: event.data.generation, pending: { generation: event.data.generation, signed: false } };
      case 'IndexSigned':
        return { ...state, pending: { generation: event.data.generation, signed: true } };
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
