import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { publicationDecider, RETAIN_REPLACED_MS, type PublicationCommand } from './publication.decider';
import type { PublicationEvent } from './publication.events';

const noble = { distro: 'ubuntu', version: 'noble' };
const file = { path: 'dists/noble/Release', blobKey: 'indices/r1/sha256/aa/bb/aabb', size: 10, sha256: 'aabb', contentType: 'text/plain', package: false };
const signature = { ...file, path: 'dists/noble/InRelease', blobKey: 'indices/r1/sha256/cc/dd/ccdd' };
const built = (generation: number): PublicationEvent => ({ type: 'IndexBuilt', data: { repositoryId: 'r1', targetDistribution: noble, generation, files: [file], builtAt: 't' } });
const signed = (generation: number): PublicationEvent => ({
  type: 'IndexSigned',
  data: { repositoryId: 'r1', targetDistribution: noble, generation, files: [signature], signedAt: 't', keyFingerprint: 'F' },
});
const publication = {
  repositoryId: 'r1', targetDistribution: noble, publishedAt: 't', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme', repositoryName: 'apt', ownerId: 'u1', manifest: { blobKey: 'indices/r1/sha256/ee/ff/eeff', sha256: 'eeff', size: 120 }, packageCount: 0, inputsDigest: 'd1',
};
const published = (generation: number, retainedGenerations: number[]): PublicationEvent => ({ type: 'IndexPublished', data: { ...publication, generation, retainedGenerations } });
const spec = deciderSpec(publicationDecider);

const publish = (publishedAt = 't'): PublicationCommand => ({
  type: 'Publish',
  built: { files: [file], at: 't' },
  signed: { files: [signature], keyFingerprint: 'F', at: 't' },
  publication: { ...publication, publishedAt },
});
const generation = (number: number, retainedGenerations: number[]) => [built(number), signed(number), published(number, retainedGenerations)];

describe('publication decider', () => {
  it('records a generation in its three phases at once, numbered from one', () => spec.given([]).when(publish()).then(generation(1, [])));

  it('makes the next generation current and keeps the three before it readable', () =>
    spec
      .given([...generation(1, []), ...generation(2, [1]), ...generation(3, [2, 1]), ...generation(4, [3, 2, 1])])
      .when(publish())
      .then(generation(5, [4, 3, 2])));

  it('keeps readable, besides the three before it, every generation replaced within the grace period, up to the limit', () => {
    const at = (minutes: number) => new Date(Date.UTC(2026, 10, 27, 10, 0) + minutes * 60_000).toISOString();
    const grace = RETAIN_REPLACED_MS / 60_000;
    const publishedAt = (generation: number, minutes: number, retainedGenerations: number[]): PublicationEvent => ({
      type: 'IndexPublished',
      data: { ...publication, publishedAt: at(minutes), generation, retainedGenerations },
    });
    // 1, 2 and 3 published in the first minutes, 4 to 6 well after the grace period: 1 and 2 were
    // replaced long before 7 is published, 3 (replaced by 4) within the grace period
    const minuteOf = (generation: number) => (generation <= 3 ? generation : 4 * grace + generation);
    const history = [1, 2, 3, 4, 5, 6].flatMap((generation) => [built(generation), signed(generation), publishedAt(generation, minuteOf(generation), [])]);
    spec
      .given(history)
      .when(publish(at(minuteOf(7))))
      .then([built(7), signed(7), publishedAt(7, minuteOf(7), [6, 5, 4, 3])]);
    // a burst: never more than the limit of 8
    const burst = Array.from({ length: 12 }, (_, index) => index + 1).flatMap((generation) => [built(generation), signed(generation), publishedAt(generation, 0, [])]);
    spec
      .given(burst)
      .when(publish(at(0)))
      .then([built(13), signed(13), publishedAt(13, 0, [12, 11, 10, 9, 8, 7, 6, 5])]);
  });

  it('remembers what the current generation was built from', () => {
    const state = generation(1, []).reduce(publicationDecider.evolve, publicationDecider.initialState());
    expect(state).toEqual({ lastGeneration: 1, published: [{ generation: 1, publishedAt: 't' }], currentInputs: 'd1' });
  });

  it('skips a generation a log of separate phases built and never published', () =>
    spec.given([...generation(1, []), built(2)]).when(publish()).then(generation(3, [1])));
});
