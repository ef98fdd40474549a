import type { Distribution } from '@packyard/formats';
import { assertNever, conflict, type Decider } from '@packyard/platform';
import type { IndexFile, IndexPublished as IndexPublishedData } from '@packyard/proto/packyard/repository/v1/events';
import type { PublicationEvent } from './publication.events';

/** generations kept readable after they stop being current (DESIGN §4: a grace period for clients mid-update) */
export const RETAINED_GENERATIONS = 3;

export interface PublicationState {
  /** the highest generation built so far */
  lastGeneration: number;
  /** the generation being published: built, then signed */
  pending?: { generation: number; signed: boolean };
  /** published generations, newest first: the current one and the retained ones */
  published: number[];
  /** what the current generation was built from (IndexPublished.inputsDigest) */
  currentInputs?: string;
}

export type PublicationCommand =
  | { type: 'RecordBuilt'; repositoryId: string; target: Distribution; files: IndexFile[]; now: string }
  | { type: 'RecordSigned'; repositoryId: string; target: Distribution; generation: number; files: IndexFile[]; keyFingerprint: string; now: string }
  | { type: 'Publish'; generation: number; publication: Omit<IndexPublishedData, 'generation' | 'retainedGenerations'> };

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
            data: { ...command.publication, generation: command.generation, retainedGenerations: state.published.slice(0, RETAINED_GENERATIONS) },
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
          published: [event.data.generation, ...state.published].slice(0, RETAINED_GENERATIONS + 1),
          currentInputs: event.data.inputsDigest,
        };
      default:
        return assertNever(event);
    }
  },
};
