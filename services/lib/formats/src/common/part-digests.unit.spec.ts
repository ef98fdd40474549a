import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PartDigests } from './part-digests';

const part = (text: string) => Buffer.from(`${text}\n`.repeat(50));
const direct = (parts: readonly Buffer[]) => {
  const bytes = Buffer.concat(parts);
  return Object.fromEntries(['md5', 'sha256', 'sha512'].map((algorithm) => [algorithm, createHash(algorithm).update(bytes).digest('hex')]));
};

describe('PartDigests', () => {
  it('gives the digests of the parts joined, whatever changed since the last time', () => {
    const digests = new PartDigests();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(part);
    const builds = [[a, b, c], [a, b, c, d], [a, part('b2'), c, d], [a, b], [], [a, b, c], [d]];
    for (const parts of builds) expect(digests.of('Packages', parts)).toEqual(direct(parts));
  });

  it('keeps files apart by their label', () => {
    const digests = new PartDigests();
    const [a, b] = ['a', 'b'].map(part);
    digests.of('Packages', [a, b]);
    expect(digests.of('Sources', [a])).toEqual(direct([a]));
    expect(digests.of('Packages', [a, b, a])).toEqual(direct([a, b, a]));
  });
});
