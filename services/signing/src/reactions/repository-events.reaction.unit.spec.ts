import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { BusMessage } from '@packyard/platform';
import { KeyGenerations } from '../keys/key-generations';
import type { KeyRing } from '../keys/key-ring';
import { repositoryEventsReaction } from './repository-events.reaction';

const created = (repositoryId: string): BusMessage => ({ id: `e-${repositoryId}`, type: 'RepositoryCreated', key: repositoryId, data: { repositoryId, workspaceSlug: 'acme', name: repositoryId } });

/** a key ring whose generations run until the test ends them */
function keyRing() {
  const generating = new Map<string, { finish: () => void; fail: (error: Error) => void }>();
  const keys = {
    ensureKey: (repositoryId: string) =>
      new Promise<void>((finish, fail) => {
        generating.set(repositoryId, { finish, fail });
      }),
  } as unknown as KeyRing;
  return { keys, generating };
}

describe('the signing module’s reaction to repositories created together', () => {
  it('makes their keys side by side: an event is done once its key is being made, one per slot', async () => {
    const { keys, generating } = keyRing();
    const reaction = repositoryEventsReaction(keys, new KeyGenerations(2), pino({ level: 'silent' }));
    await reaction.handle(created('r1'));
    await reaction.handle(created('r2'));
    expect([...generating.keys()]).toEqual(['r1', 'r2']);
    // the third waits for a slot: the bus does not hand over the next event meanwhile
    const third = reaction.handle(created('r3'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(generating.has('r3')).toBe(false);
    generating.get('r2')!.finish();
    await third;
    expect(generating.has('r3')).toBe(true);
  });

  it('logs a generation that failed (the repository’s first signature makes the key) and goes on', async () => {
    const { keys, generating } = keyRing();
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const generations = new KeyGenerations(1);
    const reaction = repositoryEventsReaction(keys, generations, logger);
    await reaction.handle(created('r1'));
    generating.get('r1')!.fail(new Error('entropy source gone'));
    await reaction.handle(created('r2'));
    expect(lines.some((line) => line.includes('"repositoryId":"r1"') && line.includes('entropy source gone') && line.includes('generating the repository key failed'))).toBe(true);
    // stopping: a creation after the close makes no key here
    const closed = generations.close();
    generating.get('r2')!.finish();
    await closed;
    await reaction.handle(created('r3'));
    expect(generating.has('r3')).toBe(false);
    expect(lines.some((line) => line.includes('"repositoryId":"r3"') && line.includes('made by its first signature'))).toBe(true);
  });
});
