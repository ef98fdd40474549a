import { createHash } from 'node:crypto';

export type DigestAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha512';
export type HexDigests = Partial<Record<DigestAlgorithm, string>>;

/**
 * Whole-file digests fed chunk by chunk as a parser reads. A digester that works
 * elsewhere (another thread) returns a promise from `update` while it is behind, and the
 * reader waits for it: bytes are never queued without bound.
 */
export interface StreamDigester {
  update(chunk: Buffer): void | Promise<void>;
  digest(): HexDigests | Promise<HexDigests>;
  /** the stream was given up: no digest will be asked for */
  abandon(): void;
}

export type StreamDigesterFactory = (algorithms: readonly DigestAlgorithm[]) => StreamDigester;

/** How a parser computes its digests; by default on the calling thread. */
export interface ParseOptions {
  readonly digester?: StreamDigesterFactory;
}

export const inThreadDigester: StreamDigesterFactory = (algorithms) => {
  const hashes = algorithms.map((algorithm) => [algorithm, createHash(algorithm)] as const);
  return {
    update(chunk) {
      for (const [, hash] of hashes) hash.update(chunk);
    },
    digest: () => Object.fromEntries(hashes.map(([algorithm, hash]) => [algorithm, hash.digest('hex')])),
    abandon() {},
  };
};
