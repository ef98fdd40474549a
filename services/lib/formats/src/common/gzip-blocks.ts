import { gzip } from './index-file';
import { PartDigests } from './part-digests';
import { fnv1a } from './stable-hash';

/** One package's text in an index (a Packages stanza, a primary.xml package element…). */
export interface IndexPiece {
  /** stable for the same text: the package and its pool path */
  readonly key: string;
  readonly text: string;
  /**
   * blockEndsAfter(key), kept with the piece by a maker that keeps its pieces from build to
   * build: a build of 100,000 pieces then hashes no key (hashing them, or finding them in a
   * map of the keys in use, was a tenth of the build)
   */
  readonly endsBlock?: boolean;
}

interface Block {
  readonly plain: Buffer;
  readonly gzipped: Buffer;
}

/** a block as kept: with the keys of the pieces it was made of */
interface KeptBlock extends Block {
  readonly keys: readonly string[];
}

/**
 * Compressed blocks of earlier builds, so that one more package recompresses one block and
 * not a 7 MB index. Holds what the builds since the last `sweep` used; a sweep after each
 * publication drops the rest. A block is found by its file and first key, then checked
 * piece by piece: no key naming all of its pieces is built and hashed (at 100,000
 * packages that was megabytes of strings per build).
 */
export class GzipBlockCache {
  private blocks = new Map<string, KeptBlock>();
  private used = new Map<string, KeptBlock>();
  /** the digests of the files made of these blocks, resumable after the blocks they share with the last build */
  readonly digests = new PartDigests();

  /** the block made before of these very pieces (the same keys in the same order) in the file `label` */
  get(label: string, pieces: readonly IndexPiece[]): Block | undefined {
    const id = blockId(label, pieces);
    const block = this.used.get(id) ?? this.blocks.get(id);
    if (!block || block.keys.length !== pieces.length || !block.keys.every((key, index) => key === pieces[index].key)) return undefined;
    this.used.set(id, block);
    return block;
  }

  /** keeps the block made of these pieces; the next build's `get` hands back the object this returns */
  set(label: string, pieces: readonly IndexPiece[], block: Block): Block {
    const kept = { ...block, keys: pieces.map((piece) => piece.key) };
    this.used.set(blockId(label, pieces), kept);
    return kept;
  }

  sweep(): void {
    this.blocks = this.used;
    this.used = new Map();
  }
}

/** keys are unique within a file, so no two of its blocks start with the same one */
const blockId = (label: string, pieces: readonly IndexPiece[]) => `${label}\n${pieces[0].key}`;

/** on average a block ends every this many pieces… */
const BLOCK_SPREAD = 256;
/** …and always after this many */
const MAX_BLOCK_PIECES = 1024;

/** whether a block ends after the piece with this key (a stable hash decides) */
export const blockEndsAfter = (key: string): boolean => fnv1a(key) % BLOCK_SPREAD === 0;

/**
 * The pieces as blocks of plain bytes and gzip members. gzip allows a file of several
 * members (RFC 1952 §2.2) and the readers of APT and YUM indices (zlib's gzread in apt,
 * libsolv and createrepo_c) read them all. Blocks end after pieces chosen by their key
 * alone, so adding or removing a package changes one block and the bytes never depend
 * on the cache. The first piece is a block of its own: every index of two packages or
 * more is several members, so the real clients of the end-to-end tests read such files.
 * `label` keeps the blocks of different files of one cache apart.
 *
 * The plain bytes are there at once and the members once libuv's thread pool has
 * compressed the new blocks, so the caller can read the plain file (hash it) meanwhile.
 */
export function gzipInBlocks(label: string, pieces: readonly IndexPiece[], cache?: GzipBlockCache): { plain: Buffer[]; blocks: Promise<Block[]> } {
  const ranges: (readonly IndexPiece[])[] = [];
  let start = 0;
  for (let i = 0; i < pieces.length; i++) {
    if (i === 0 || (pieces[i].endsBlock ?? blockEndsAfter(pieces[i].key)) || i + 1 - start === MAX_BLOCK_PIECES || i === pieces.length - 1) {
      ranges.push(pieces.slice(start, i + 1));
      start = i + 1;
    }
  }
  const blocks = ranges.map((range): { plain: Buffer; block: Block | Promise<Block> } => {
    const cached = cache?.get(label, range);
    if (cached) return { plain: cached.plain, block: cached };
    const plain = Buffer.from(range.map((piece) => piece.text).join(''), 'utf8');
    const block = gzip(plain).then((gzipped) => (cache ? cache.set(label, range, { plain, gzipped }) : { plain, gzipped }));
    return { plain, block };
  });
  return { plain: blocks.map(({ plain }) => plain), blocks: Promise.all(blocks.map(({ block }) => block)) };
}
