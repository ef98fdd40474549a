import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { publicationDecider, RETAIN_REPLACED_MS } from './publication.decider';
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

describe('publication decider', () => {
  it('numbers generations from one', () =>
    spec.given([]).when({ type: 'RecordBuilt', repositoryId: 'r1', target: noble, files: [file], now: 't' }).then([built(1)]));

  it('signs only the pending generation, once', () => {
    spec.given([built(1)]).when({ type: 'RecordSigned', repositoryId: 'r1', target: noble, generation: 1, files: [signature], keyFingerprint: 'F', now: 't' }).then([signed(1)]);
    spec.given([built(1), signed(1)]).when({ type: 'RecordSigned', repositoryId: 'r1', target: noble, generation: 1, files: [signature], keyFingerprint: 'F', now: 't' }).thenThrows(/not waiting/);
  });

  it('never makes an unsigned generation current', () =>
    spec.given([built(1)]).when({ type: 'Publish', generation: 1, publication }).thenThrows(/not signed/));

  it('makes a signed generation current and keeps the three before it readable', () =>
    spec
      .given([built(1), signed(1), published(1, []), built(2), signed(2), published(2, [1]), built(3), signed(3), published(3, [2, 1]), built(4), signed(4), published(4, [3, 2, 1]), built(5), signed(5)])
      .when({ type: 'Publish', generation: 5, publication })
      .then([published(5, [4, 3, 2])]));

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
      .given([...history, built(7), signed(7)])
      .when({ type: 'Publish', generation: 7, publication: { ...publication, publishedAt: at(minuteOf(7)) } })
      .then([publishedAt(7, minuteOf(7), [6, 5, 4, 3])]);
    // a burst: never more than the limit of 8
    const burst = Array.from({ length: 12 }, (_, index) => index + 1).flatMap((generation) => [built(generation), signed(generation), publishedAt(generation, 0, [])]);
    spec
      .given([...burst, built(13), signed(13)])
      .when({ type: 'Publish', generation: 13, publication: { ...publication, publishedAt: at(0) } })
      .then([publishedAt(13, 0, [12, 11, 10, 9, 8, 7, 6, 5])]);
  });

  it('remembers what the current generation was built from', () => {
    const state = [built(1), signed(1), published(1, [])].reduce(publicationDecider.evolve, publicationDecider.initialState());
    expect(state).toEqual({ lastGeneration: 1, published: [{ generation: 1, publishedAt: 't' }], currentInputs: 'd1' });
  });

  it('lets a newer build supersede one that failed before signing', () =>
    spec.given([built(1)]).when({ type: 'RecordBuilt', repositoryId: 'r1', target: noble, files: [file], now: 't' }).then([built(2)]));
});
