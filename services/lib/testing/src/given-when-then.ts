import { expect } from 'vitest';
import type { Decider } from '@packyard/platform/eventsourcing/decider';
import type { RecordedEvent } from '@packyard/platform/eventsourcing/event-store.port';
import { project, type Projection } from '@packyard/platform/readmodels/projection-runner';
import type { ReadModelStore } from '@packyard/platform/readmodels/read-model.port';
import { SqliteReadModelStore } from '@packyard/platform/readmodels/sqlite-read-model-store.adapter';

type ErrorExpectation = string | RegExp | (new (...args: never[]) => Error);

/**
 * Given past events, when a command arrives, then these events (or this error):
 *   deciderSpec(decider).given([created]).when(rename).then([renamed])
 */
export function deciderSpec<State, Command, Event>(decider: Decider<State, Command, Event>) {
  return {
    given: (history: Event[]) => ({
      when: (command: Command) => {
        const decide = () => decider.decide(command, history.reduce((state, event) => decider.evolve(state, event), decider.initialState()));
        return {
          then: (expected: Event[]) => expect(decide()).toEqual(expected),
          thenThrows: (expected?: ErrorExpectation) => expect(decide).toThrow(expected as never),
        };
      },
    }),
  };
}

/** What a projection spec needs of an event; the rest is filled in. */
export interface GivenEvent {
  type: string;
  data: unknown;
  stream?: string;
  metadata?: Record<string, unknown>;
}

const record = (events: GivenEvent[], firstPosition: number): RecordedEvent[] => {
  const versions = new Map<string, number>();
  return events.map((event, index) => {
    const stream = event.stream ?? 'spec-1';
    const version = (versions.get(stream) ?? 0) + 1;
    versions.set(stream, version);
    const position = firstPosition + index;
    return { id: `event-${position}`, ...event, stream, version, position, recordedAt: new Date(0).toISOString() };
  });
};

/**
 * Given past events, when these arrive, then the read models look like this. `then` runs
 * the assertion twice: once after the events, once after they are delivered again, since
 * delivery is at-least-once and handlers must be idempotent.
 */
export function projectionSpec(projection: Projection) {
  return {
    given: (history: GivenEvent[]) => ({
      when: (events: GivenEvent[]) => ({
        then: async (assert: (readModels: ReadModelStore) => Promise<void> | void) => {
          const readModels = SqliteReadModelStore.open(':memory:');
          try {
            const recorded = record([...history, ...events], 1);
            const arriving = recorded.slice(history.length);
            for (const event of recorded) await project(projection, event, readModels);
            await assert(readModels);
            for (const event of arriving) await project(projection, event, readModels);
            await assert(readModels);
          } finally {
            await readModels.close();
          }
        },
      }),
    }),
  };
}
