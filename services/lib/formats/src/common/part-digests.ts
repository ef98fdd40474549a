import { createHash, type Hash } from 'node:crypto';

const APT_ALGORITHMS = ['md5', 'sha256', 'sha512'] as const;
type AptDigests = Record<(typeof APT_ALGORITHMS)[number], string>;

interface HashedFile {
  /** the parts hashed last time, by identity (a cached block is the same Buffer from build to build) */
  parts: readonly Buffer[];
  /** the hash states after each of those parts */
  states: Hash[][];
}

/**
 * The hash states of files made of parts, after each part, as last computed: a file that
 * starts with the same parts resumes hashing after them. An upload joins the end of a
 * repository's package list, so one more package in 100,000 hashes one block, not 50 MB
 * three times over.
 */
export class PartDigests {
  private readonly files = new Map<string, HashedFile>();

  /** MD5, SHA-256 and SHA-512 of the parts joined (what an APT Release lists), the file known by `label` */
  of(label: string, parts: readonly Buffer[]): AptDigests {
    const before = this.files.get(label);
    let same = 0;
    while (before && same < parts.length && same < before.parts.length && parts[same] === before.parts[same]) same++;
    const states: Hash[][] = before ? before.states.slice(0, same) : [];
    let hashes = same > 0 ? states[same - 1].map((hash) => hash.copy()) : APT_ALGORITHMS.map((algorithm) => createHash(algorithm));
    for (let index = same; index < parts.length; index++) {
      for (const hash of hashes) hash.update(parts[index]);
      states.push(hashes);
      hashes = hashes.map((hash) => hash.copy());
    }
    this.files.set(label, { parts: [...parts], states });
    const [md5, sha256, sha512] = hashes.map((hash) => hash.digest('hex'));
    return { md5, sha256, sha512 };
  }
}
